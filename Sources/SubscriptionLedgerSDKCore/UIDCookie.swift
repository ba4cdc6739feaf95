import Foundation

/// The signed `uid` / `uid_sig` cookie pair `POST /uploadReceipt` (or, for StoreKit 2 apps, `POST /uploadTransactions`)
/// sets: with it the app's public key acts for that one user. The SDK keeps it itself (not in a shared cookie jar) so
/// it is sent only to the ledger that issued it, only for the user it names, and survives launches.
struct UIDCookie: Sendable, Equatable, Codable {
    /// The user the ledger issued it for (the decoded `uid`).
    var userID: String
    /// `uid` as set (percent-encoded user id).
    var uid: String
    /// `uid_sig`: `<expiry unix seconds>.<MAC>`.
    var signature: String

    /// When the ledger stops accepting it (from the signature's expiry).
    var expires: Date? {
        guard let seconds = signature.split(separator: ".").first.flatMap({ TimeInterval(String($0)) }) else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Valid for `userID` at `now`, with a margin so a request does not race the expiry.
    func isUsable(for userID: String, now: Date = Date()) -> Bool {
        guard userID == self.userID, let expires else { return false }
        return expires.timeIntervalSince(now) > 60
    }

    /// The `Cookie` request header value.
    var header: String { "uid=\(uid); uid_sig=\(signature)" }

    /// The pair from a response's `Set-Cookie` header(s). Foundation may fold several `Set-Cookie` fields into one
    /// comma-separated value (and `Expires` holds a comma), so each value is found by name and ends at `;` or `,`.
    static func from(setCookie header: String, userID: String) -> UIDCookie? {
        guard let uid = value(named: "uid", in: header), let signature = value(named: "uid_sig", in: header) else { return nil }
        return UIDCookie(userID: userID, uid: uid, signature: signature)
    }

    static func value(named name: String, in header: String) -> String? {
        var searchStart = header.startIndex
        while let range = header.range(of: name + "=", range: searchStart..<header.endIndex) {
            let atBoundary =
                range.lowerBound == header.startIndex
                || [",", ";", " "].contains(header[header.index(before: range.lowerBound)])
            if atBoundary {
                let rest = header[range.upperBound...]
                let end = rest.firstIndex { $0 == ";" || $0 == "," } ?? rest.endIndex
                let value = rest[..<end].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
            searchStart = range.upperBound
        }
        return nil
    }
}
