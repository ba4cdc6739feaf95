import Crypto
import Foundation
import UTCTime

/// The bearer token of every App Store Server API request: a JWT signed ES256 with the app's In-App Purchase key.
///
/// Header `{"alg":"ES256","kid":<key id>,"typ":"JWT"}`; claims `iss` (issuer id), `iat`, `exp` (`iat` + 5 minutes;
/// Apple refuses tokens living longer than an hour, and a short life limits what a leaked token allows), `aud`
/// `appstoreconnect-v1` and `bid` (bundle id). Pure: the time is a parameter, so tests check exact tokens.
package enum AppStoreJWT {
    package static let audience = "appstoreconnect-v1"
    package static let lifetime: Duration = .seconds(300)

    /// The claims of a token issued at `issuedAt` (whole seconds since 1970).
    package struct Claims: Sendable, Equatable, Codable {
        package var iss: String
        package var iat: Int64
        package var exp: Int64
        package var aud: String
        package var bid: String

        package init(iss: String, iat: Int64, exp: Int64, aud: String, bid: String) {
            self.iss = iss
            self.iat = iat
            self.exp = exp
            self.aud = aud
            self.bid = bid
        }
    }

    package struct Header: Sendable, Equatable, Codable {
        package var alg: String
        package var kid: String
        package var typ: String

        package init(alg: String, kid: String, typ: String) {
            self.alg = alg
            self.kid = kid
            self.typ = typ
        }
    }

    package static func claims(for key: AppStoreAPIKey, issuedAt: Instant) -> Claims {
        let iat = issuedAt.secondsSinceEpoch
        return Claims(iss: key.issuerID, iat: iat, exp: iat + lifetime.components.seconds, aud: audience, bid: key.bundleID)
    }

    /// The compact token: base64url(header).base64url(claims).base64url(r || s).
    package static func token(for key: AppStoreAPIKey, issuedAt: Instant) throws -> String {
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
    package static func verified(_ token: String, publicKey: P256.Signing.PublicKey) -> (header: Header, claims: Claims)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = decode(parts[0]), let claims = decode(parts[1]), let raw = decode(parts[2]),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw),
            publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)),
            let h = try? JSONDecoder().decode(Header.self, from: header),
            let c = try? JSONDecoder().decode(Claims.self, from: claims)
        else { return nil }
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
