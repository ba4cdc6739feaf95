import AppStoreVerification

/// Feeds arbitrary bytes to the receipt path: as a PKCS#7 container (BER parser, certificates, attribute set) and,
/// as text, through the base64 / mistake classification. Any trap, leak or overflow is a bug; thrown errors are not.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReceipt(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? UnverifiedInspection.receipt(der: bytes)
    _ = try? ReceiptParser.parse(payload: bytes)
    _ = try? UnverifiedInspection.receipt(base64: String(decoding: bytes, as: UTF8.self))
    return 0
}
let LLVMFuzzerTestOneInputPointer: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt = { fuzzReceipt($0, $1) }
