import Crypto
import Foundation
import LedgerStore
import UTCTime

/// The proof of an erasure that `ledger users erase` and `DELETE /v1/users/{user_id}` answer (docs/erasure.md). It
/// names no personal data: the app, the user's pseudonym, the classes of data destroyed, when, by whom (an operator
/// id or `shell:…`), and the log's chain head then (the event count and the hash of the streams' heads, as a signed
/// digest computes them), so an auditor checks it against the log and its digests.
package struct ErasureCertificate: Sendable, Equatable, Codable {
    package var appID: String
    package var pseudonym: String
    /// The classes destroyed, e.g. `app_user_id`, `app_account_token`, `developer_payload`, `signed_payloads`.
    package var destroyed: [String]
    package var erasedAt: Instant
    package var erasedBy: String
    package var chainEventCount: Int64
    package var chainHeadsHash: [UInt8]

    package init(
        appID: String, pseudonym: String, destroyed: [String], erasedAt: Instant, erasedBy: String, chainEventCount: Int64,
        chainHeadsHash: [UInt8]
    ) {
        (self.appID, self.pseudonym, self.destroyed, self.erasedAt) = (appID, pseudonym, destroyed.sorted(), erasedAt)
        (self.erasedBy, self.chainEventCount, self.chainHeadsHash) = (erasedBy, chainEventCount, chainHeadsHash)
    }

    enum CodingKeys: String, CodingKey {
        case appID = "app_id"
        case pseudonym, destroyed
        case erasedAt = "erased_at"
        case erasedBy = "erased_by"
        case chainEventCount = "chain_event_count"
        case chainHeadsHash = "chain_heads_hash"
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(appID, forKey: .appID)
        try c.encode(pseudonym, forKey: .pseudonym)
        try c.encode(destroyed, forKey: .destroyed)
        try c.encode(erasedAt.rfc3339, forKey: .erasedAt)
        try c.encode(erasedBy, forKey: .erasedBy)
        try c.encode(chainEventCount, forKey: .chainEventCount)
        try c.encode(Hex.string(chainHeadsHash), forKey: .chainHeadsHash)
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let at = try c.decode(String.self, forKey: .erasedAt)
        let hash = try c.decode(String.self, forKey: .chainHeadsHash)
        guard let erasedAt = Instant(rfc3339: at), let heads = Hex.bytes(hash) else {
            throw DecodingError.dataCorruptedError(forKey: .erasedAt, in: c, debugDescription: "erased_at or chain_heads_hash is malformed")
        }
        self.init(
            appID: try c.decode(String.self, forKey: .appID), pseudonym: try c.decode(String.self, forKey: .pseudonym),
            destroyed: try c.decode([String].self, forKey: .destroyed), erasedAt: erasedAt, erasedBy: try c.decode(String.self, forKey: .erasedBy),
            chainEventCount: try c.decode(Int64.self, forKey: .chainEventCount), chainHeadsHash: heads)
    }

    /// Its bytes as signed: JSON with sorted keys, no insignificant whitespace.
    package var canonicalJSON: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(self)) ?? Data())  // strings, integers and arrays of strings always encode
    }
}

/// A certificate with the digest key's Ed25519 signature over its canonical JSON, and that key's public half.
package struct SignedErasureCertificate: Sendable, Equatable, Codable {
    package var certificate: ErasureCertificate
    package var publicKey: String
    package var signature: String

    enum CodingKeys: String, CodingKey {
        case certificate
        case publicKey = "public_key"
        case signature
    }

    package init(_ certificate: ErasureCertificate, key: Curve25519.Signing.PrivateKey) throws {
        self.certificate = certificate
        publicKey = Hex.string(Array(key.publicKey.rawRepresentation))
        signature = Hex.string(Array(try key.signature(for: certificate.canonicalJSON)))
    }

    /// Whether the signature holds, by the key it names, and that key is `trusted` (when given).
    package func isValid(trusted: Curve25519.Signing.PublicKey? = nil) -> Bool {
        guard let keyBytes = Hex.bytes(publicKey), let key = try? Curve25519.Signing.PublicKey(rawRepresentation: keyBytes),
            let signatureBytes = Hex.bytes(signature)
        else { return false }
        if let trusted, trusted.rawRepresentation != key.rawRepresentation { return false }
        return key.isValidSignature(signatureBytes, for: certificate.canonicalJSON)
    }
}
