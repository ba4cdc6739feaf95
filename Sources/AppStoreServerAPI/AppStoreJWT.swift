import Crypto
import Foundation

/// The bearer token of every App Store Server API request: a JWT signed ES256 with the app's In-App Purchase key.
///
/// Header `{"alg":"ES256","kid":<key id>,"typ":"JWT"}`; claims `iss` (issuer id), `iat`, `exp` (`iat` + 5 minutes;
/// Apple refuses tokens living longer than an hour, and a short life limits what a leaked token allows), `aud`
/// `appstoreconnect-v1` and `bid` (bundle id). Pure: the time is a parameter, so tests check exact tokens.
public enum AppStoreJWT {
    public static let audience = "appstoreconnect-v1"
    public static let lifetime: TimeInterval = 300

    /// The claims of a token issued at `issuedAt` (whole seconds since 1970).
    public struct Claims: Sendable, Equatable, Codable {
        public var iss: String
        public var iat: Int64
        public var exp: Int64
        public var aud: String
        public var bid: String

        public init(iss: String, iat: Int64, exp: Int64, aud: String, bid: String) {
            self.iss = iss
            self.iat = iat
            self.exp = exp
            self.aud = aud
            self.bid = bid
        }
    }

    public struct Header: Sendable, Equatable, Codable {
        public var alg: String
        public var kid: String
        public var typ: String

        public init(alg: String, kid: String, typ: String) {
            self.alg = alg
            self.kid = kid
            self.typ = typ
        }
    }

    public static func claims(for key: AppStoreAPIKey, issuedAt: Date) -> Claims {
        let iat = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        return Claims(iss: key.issuerID, iat: iat, exp: iat + Int64(lifetime), aud: audience, bid: key.bundleID)
    }

    /// The compact token: base64url(header).base64url(claims).base64url(r || s).
    public static func token(for key: AppStoreAPIKey, issuedAt: Date) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = try encoder.encode(Header(alg: "ES256", kid: key.keyID, typ: "JWT"))
        let claims = try encoder.encode(claims(for: key, issuedAt: issuedAt))
        let signingInput = base64URL(header) + "." + base64URL(claims)
        let signature = try key.privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + base64URL(signature.rawRepresentation)
    }

    /// A token's parts, its signature checked with `publicKey` (the fake App Store Server of the tests uses this).
    /// Nil when the token is malformed or its signature does not verify.
    public static func verified(_ token: String, publicKey: P256.Signing.PublicKey) -> (header: Header, claims: Claims)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = decode(parts[0]), let claims = decode(parts[1]), let raw = decode(parts[2]),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw),
              publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)),
              let h = try? JSONDecoder().decode(Header.self, from: header),
              let c = try? JSONDecoder().decode(Claims.self, from: claims) else { return nil }
        return (h, c)
    }

    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ part: Substring) -> Data? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text)
    }
}
