import SwiftASN1
import Synchronization
import X509

/// Certificates already parsed, by their base64 text in a JWS's `x5c`. Every notification carries the same leaf and
/// intermediate up to three times (the notification, its transaction, its renewal info); parsing their DER each time
/// was a visible share of ingest. Only certificates that parsed are kept, at most `capacity` (all are dropped when
/// it is reached, so whatever an attacker sends cannot grow it). Trust is not cached here: see `ChainCache`.
final class CertificateCache: Sendable {
    let capacity: Int
    private let parsed = Mutex<[String: Certificate]>([:])

    init(capacity: Int = 64) { self.capacity = max(1, capacity) }

    /// The certificate of `base64`, parsed once; nil when it is not base64 DER of an X.509 certificate.
    func certificate(_ base64: String) -> Certificate? {
        if let known = parsed.withLock({ $0[base64] }) { return known }
        guard let der = Base64.decodeStandard(base64), let certificate = try? Certificate(derEncoded: der) else { return nil }
        parsed.withLock { parsed in
            if parsed.count >= capacity { parsed.removeAll() }
            parsed[base64] = certificate
        }
        return certificate
    }

    var count: Int { parsed.withLock { $0.count } }
}
