import Crypto
import Foundation
import Synchronization

/// The keys that sign status answers for apps to keep offline (the SDK's OfflineEntitlements article): an ECDSA P-256
/// key derived from each master key (HKDF), so every instance signs with the same key, the current master key's, and
/// publishes the keys of all the master keys it holds (`/.well-known/jwks.json`). Rotating the master key
/// (`ledger keys rotate`) rotates the signing key: during the rotation both are published, so an app that kept a
/// snapshot signed by the old one still trusts it, and one that meets the new key fetches the set again.
package final class StatusSigningKeys: Sendable {
    /// A derived key and its name in signatures and in the published set.
    package struct Key: Sendable {
        package let privateKey: P256.Signing.PrivateKey
        /// 16 base64url characters: the start of SHA-256 over the public key.
        package let id: String
    }

    let keys: MasterKeySource
    /// Derived keys by master-key fingerprint: HKDF and a scalar check per master key, once per process.
    private let derived = Mutex<[[UInt8]: Key]>([:])

    package init(keys: MasterKeySource) { self.keys = keys }

    /// The key that signs now (the current master key's).
    package var current: Key { key(for: keys.ring.current) }

    /// Every key a signature may name: the current one and those of the master keys a rotation still holds.
    package var published: [Key] { keys.ring.all.map(key(for:)) }

    private func key(for master: SymmetricKey) -> Key {
        let fingerprint = MasterKeyring.fingerprint(master)
        if let known = derived.withLock({ $0[fingerprint] }) { return known }
        let made = Self.derive(from: master)
        derived.withLock { $0[fingerprint] = made }
        return made
    }

    /// HKDF-SHA256 of the master key to 32 bytes, taken as the private scalar; the counter moves on in the
    /// (2^-32-likely) case that the bytes are not a valid scalar.
    static func derive(from master: SymmetricKey) -> Key {
        for counter in UInt8(0)...UInt8.max {
            let bytes = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: master, salt: Array("ledger status signing key v1".utf8), info: [counter], outputByteCount: 32)
            if let privateKey = try? bytes.withUnsafeBytes({ try P256.Signing.PrivateKey(rawRepresentation: Array($0)) }) {
                let digest = Array(SHA256.hash(data: privateKey.publicKey.x963Representation))
                return Key(privateKey: privateKey, id: StatusSignature.base64URL(digest.prefix(12)))
            }
        }
        preconditionFailure("HKDF gave 256 invalid P-256 scalars in a row")
    }

    /// The detached JWS (RFC 7515 appendix F) over `body`, exactly as sent, naming the user it describes and when it
    /// was issued in its protected header: `<header>..<signature>`.
    package func sign(body: some Collection<UInt8>, subject: String, issuedAt: Int64) throws -> String {
        let key = current
        let header = StatusSignature.Header(algorithm: "ES256", keyID: key.id, type: StatusSignature.type, subject: subject, issuedAt: issuedAt)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let protected = StatusSignature.base64URL(Array(try encoder.encode(header)))
        let input = Array((protected + "." + StatusSignature.base64URL(Array(body))).utf8)
        let signature = try key.privateKey.signature(for: input)
        return protected + ".." + StatusSignature.base64URL(Array(signature.rawRepresentation))
    }

    /// The published keys as a JSON Web Key Set (RFC 7517).
    package func keySet() -> StatusSignature.KeySet {
        StatusSignature.KeySet(
            keys: published.map { key in
                let point = Array(key.privateKey.publicKey.x963Representation)  // 0x04 ‖ x ‖ y
                return StatusSignature.JWK(
                    keyType: "EC", curve: "P-256", x: StatusSignature.base64URL(point[1..<33]), y: StatusSignature.base64URL(point[33..<65]),
                    keyID: key.id, algorithm: "ES256", use: "sig")
            })
    }
}

/// The wire shapes of a status signature: the JWS protected header and the key set.
package enum StatusSignature {
    /// `typ` of the protected header.
    package static let type = "ledger-status+jws"

    package struct Header: Codable, Sendable {
        package var algorithm: String
        package var keyID: String
        package var type: String
        /// The app's user id the answer describes.
        package var subject: String
        /// When the ledger answered, in seconds since 1970 (UTC).
        package var issuedAt: Int64

        enum CodingKeys: String, CodingKey {
            case algorithm = "alg"
            case keyID = "kid"
            case type = "typ"
            case subject = "sub"
            case issuedAt = "iat"
        }
    }

    package struct JWK: Codable, Sendable {
        package var keyType: String
        package var curve: String
        package var x: String
        package var y: String
        package var keyID: String
        package var algorithm: String
        package var use: String

        enum CodingKeys: String, CodingKey {
            case keyType = "kty"
            case curve = "crv"
            case x, y
            case keyID = "kid"
            case algorithm = "alg"
            case use
        }
    }

    package struct KeySet: Codable, Sendable {
        package var keys: [JWK]
    }

    /// Unpadded base64url (RFC 7515 §2).
    package static func base64URL(_ bytes: some Collection<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
