import Crypto
import Foundation

/// The `uid` cookie a public key works under (set by `POST /uploadReceipt` and `POST /uploadTransactions`): the server
/// names the user in `uid` and signs it in `uid_sig` (`<expiry, unix seconds>.<base64url HMAC-SHA256 of app, user and
/// expiry>`), so a client can neither forge one, edit the user, move it to another app, nor keep using it after it
/// expires.
///
/// Two cookies rather than one so that `uid` holds exactly the user id, as the seed API promised.
package struct UserCookie: Sendable {
    package static let userName = "uid"
    package static let signatureName = "uid_sig"

    let key: SymmetricKey
    /// How long an issued cookie is valid, in seconds.
    package let lifetime: Int64

    package init(key: [UInt8], lifetime: Int64 = 30 * 86_400) {
        self.key = SymmetricKey(data: key)
        self.lifetime = lifetime
    }

    /// Why a presented cookie is refused.
    package enum Refusal: Error, Equatable, Sendable {
        case missing
        case malformed
        case badSignature
        case expired

        var message: String {
            switch self {
            case .missing:
                "a public key needs the signed `uid` cookie the server sets on POST /uploadReceipt or POST /uploadTransactions; "
                    + "upload the receipt or the StoreKit 2 signed transactions first (or call from your backend with a secret key)"
            case .malformed:
                "the `uid_sig` cookie is not one this server issued; upload the receipt (or the signed transactions) again to get a new cookie"
            case .badSignature:
                "the `uid` cookie does not match its signature (was it edited?); upload the receipt (or the signed transactions) again "
                    + "to get a new cookie"
            case .expired: "the `uid` cookie has expired; upload the receipt (or the signed transactions) again to renew it"
            }
        }
    }

    /// The `uid` and `uid_sig` values for a user of an app, valid until `now + lifetime`.
    package func issue(app appID: String, user: String, now: Int64) -> (uid: String, signature: String, expires: Int64) {
        let expires = now + lifetime
        return (Self.encode(user), "\(expires)." + mac(app: appID, user: user, expires: expires), expires)
    }

    /// The user named by a presented cookie pair, when its signature is ours, for this app, and unexpired.
    package func verify(app appID: String, uid: String?, signature: String?, now: Int64) -> Result<String, Refusal> {
        guard let uid, let signature else { return .failure(.missing) }
        let parts = signature.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, let expires = Int64(parts[0]), let user = uid.removingPercentEncoding, !user.isEmpty
        else { return .failure(.malformed) }
        let expected = mac(app: appID, user: user, expires: expires)
        // Compare MACs in constant time.
        guard expected.utf8.count == parts[1].utf8.count,
            zip(expected.utf8, parts[1].utf8).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0
        else { return .failure(.badSignature) }
        guard expires > now else { return .failure(.expired) }
        return .success(user)
    }

    /// `Set-Cookie` values for an issued pair.
    package func setCookieHeaders(uid: String, signature: String, expires: Int64) -> [String] {
        let date = Date(timeIntervalSince1970: TimeInterval(expires))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let attributes = "Expires=\(formatter.string(from: date)); Max-Age=\(lifetime); Path=/; HttpOnly; SameSite=Lax"
        return ["\(Self.userName)=\(uid); \(attributes)", "\(Self.signatureName)=\(signature); \(attributes)"]
    }

    private func mac(app appID: String, user: String, expires: Int64) -> String {
        let message = Array("\(appID)\n\(user)\n\(expires)".utf8)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: key)
        return Data(code).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// User ids may hold any character; a cookie value may not hold spaces, quotes, commas, semicolons or
    /// backslashes, so everything but unreserved URL characters is percent-encoded.
    static func encode(_ user: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return user.addingPercentEncoding(withAllowedCharacters: allowed) ?? user
    }
}
