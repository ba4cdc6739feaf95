import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    // swift-crypto: CryptoKit's API on Linux (the SDK's tests run there); Apple platforms use the system's CryptoKit.
    import Crypto
#endif

/// A status answer exactly as the ledger sent it, with its `Ledger-Signature` (a detached ES256 JWS over the body that
/// names the user and when it was issued): what the SDK keeps on disk and trusts offline once `verified` says so.
struct SignedSnapshot: Sendable, Equatable, Codable {
    var body: Data
    var signature: String

    /// The signature's protected header.
    struct Header: Sendable, Equatable, Codable {
        var alg: String
        var kid: String
        var typ: String?
        var sub: String
        var iat: Int64
    }

    /// Why a kept snapshot is not trusted.
    enum Refusal: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        /// No key of the set the SDK holds has this id (a foreign signer, or a key the SDK has not fetched yet).
        case unknownKey(String)
        case badSignature
        case otherUser(String)
        /// Older than `LedgerConfiguration.offlineEntitlementsMaximumAge`, or issued in the future of the device's clock.
        case outOfDate(issuedAt: Date)

        var description: String {
            switch self {
            case .malformed(let why): "malformed signature: \(why)"
            case .unknownKey(let id): "signed by an unknown key `\(id)`"
            case .badSignature: "the signature does not match the body"
            case .otherUser(let user): "issued for another user (\(user))"
            case .outOfDate(let issued): "issued at \(issued), outside the accepted age"
            }
        }
    }

    /// The header of a signature that holds against `keys`, for `user`, not older than `maximumAge` at `now` (nil:
    /// any age).
    func verified(by keys: StatusKeySet, user: String, now: Date, maximumAge: Duration?) throws(Refusal) -> Header {
        let parts = signature.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].isEmpty else { throw .malformed("not a detached JWS (`header..signature`)") }
        guard let headerBytes = Base64URL.decode(parts[0]), let header = try? JSONDecoder().decode(Header.self, from: headerBytes) else {
            throw .malformed("the protected header is not JSON")
        }
        guard header.alg == "ES256" else { throw .malformed("algorithm \(header.alg)") }
        guard let key = keys.key(id: header.kid) else { throw .unknownKey(header.kid) }
        guard let signatureBytes = Base64URL.decode(parts[2]),
            let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        else { throw .malformed("the signature is not base64url ES256") }
        let input = Data((String(parts[0]) + "." + Base64URL.encode(body)).utf8)
        guard key.isValidSignature(ecdsa, for: input) else { throw .badSignature }
        guard header.sub == user else { throw .otherUser(header.sub) }
        guard let maximumAge else { return header }
        let issued = Date(timeIntervalSince1970: TimeInterval(header.iat))
        let age = now.timeIntervalSince(issued)
        // Issued in the device clock's future by more than five minutes: the clock was moved back to stretch the
        // snapshot's life (or is badly off); either way its age cannot be judged.
        guard age >= -300, age <= TimeInterval(maximumAge.components.seconds) else { throw .outOfDate(issuedAt: issued) }
        return header
    }

    /// The protected header, unchecked: what the signature claims.
    var header: Header? {
        guard let first = signature.split(separator: ".").first, let bytes = Base64URL.decode(first) else { return nil }
        return try? JSONDecoder().decode(Header.self, from: bytes)
    }

    /// The key id the signature names (to fetch the key set again when it is not known).
    var keyID: String? { header?.kid }
}

/// The ledger's status signing keys (`/.well-known/jwks.json`), as the SDK last fetched them: pinned on disk, fetched
/// again when an answer names a key it does not hold (a rotation reaches apps without an update).
struct StatusKeySet: Sendable, Equatable, Codable {
    struct JWK: Sendable, Equatable, Codable {
        var kty: String
        var crv: String
        var x: String
        var y: String
        var kid: String
    }

    var keys: [JWK]

    func key(id: String) -> P256.Signing.PublicKey? {
        guard let jwk = keys.first(where: { $0.kid == id }), jwk.kty == "EC", jwk.crv == "P-256",
            let x = Base64URL.decode(jwk.x), let y = Base64URL.decode(jwk.y), x.count == 32, y.count == 32
        else { return nil }
        return try? P256.Signing.PublicKey(x963Representation: Data([0x04]) + x + y)
    }
}

/// Unpadded base64url (RFC 7515 §2).
enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
