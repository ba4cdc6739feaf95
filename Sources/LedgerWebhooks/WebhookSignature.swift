import Crypto
import Foundation

/// Standard Webhooks signatures (https://www.standardwebhooks.com): the `webhook-signature` header is `v1,` and the
/// base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the secret's bytes (a `whsec_` secret
/// is base64 after its prefix). Several secrets (a rotation) give several signatures, separated by spaces; a
/// receiver accepts the message if any of them verifies.
package enum WebhookSignature {
    package enum Failure: Error, Equatable {
        case malformedSecret
    }

    /// The value of `webhook-signature`.
    package static func header(secrets: [String], id: String, timestamp: Int64, body: some Collection<UInt8>) throws -> String {
        try secrets.map { try "v1," + sign(secret: $0, id: id, timestamp: timestamp, body: body) }.joined(separator: " ")
    }

    /// One base64 signature.
    package static func sign(secret: String, id: String, timestamp: Int64, body: some Collection<UInt8>) throws -> String {
        let key = SymmetricKey(data: try keyBytes(secret))
        var mac = HMAC<SHA256>(key: key)
        mac.update(data: Array("\(id).\(timestamp).".utf8))
        mac.update(data: Array(body))
        return Data(mac.finalize()).base64EncodedString()
    }

    /// The key bytes of a secret: base64 after `whsec_` (the specification's format), or base64 alone.
    static func keyBytes(_ secret: String) throws -> Data {
        let encoded = secret.hasPrefix("whsec_") ? String(secret.dropFirst(6)) : secret
        guard let bytes = Data(base64Encoded: encoded), !bytes.isEmpty else { throw Failure.malformedSecret }
        return bytes
    }
}
