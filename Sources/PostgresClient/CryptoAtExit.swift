import Glibc

/// libpq uses the system's OpenSSL (SCRAM authentication, TLS). OpenSSL 3 frees its global state in an `atexit`
/// handler; a connection closed on another thread while the process exits (a pool's last `PQfinish`, which frees its
/// SCRAM and TLS state) then calls into freed memory, and a command that had done its work dies by SIGSEGV (seen
/// once: `ledger migrate --seal-history` printed its success, then exited by the signal in `libcrypto.so.3` on a
/// pool thread). Asked before libpq first initializes OpenSSL, `OPENSSL_INIT_NO_ATEXIT` leaves that state to the
/// kernel at exit, as for any other memory. Looked up at run time (libcrypto is loaded with libpq, and no OpenSSL
/// header is needed to build); without it, nothing happens.
enum CryptoAtExit {
    /// Whether OpenSSL was told to keep its state until the process ends. Evaluated once, before the first connect.
    static let isKept: Bool = {
        // RTLD_DEFAULT (a null handle): the symbols of everything the process has loaded.
        guard let symbol = dlsym(nil, "OPENSSL_init_crypto") else { return false }
        typealias InitCrypto = @convention(c) (UInt64, OpaquePointer?) -> Int32
        let noAtExit: UInt64 = 0x0008_0000  // OPENSSL_INIT_NO_ATEXIT, openssl/crypto.h
        return unsafeBitCast(symbol, to: InitCrypto.self)(noAtExit, nil) == 1
    }()
}
