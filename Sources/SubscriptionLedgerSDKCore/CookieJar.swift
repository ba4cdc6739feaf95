import Foundation

/// Who the SDK works for, kept between launches: the current user, and the signed `uid` cookie of every user this
/// device uploaded for (a user's queued uploads still go out with their own cookie after `logOut` or `logIn`).
struct CookieJar: Sendable {
    private let cookiesFile: JSONFile<[String: UIDCookie]>
    private let currentFile: JSONFile<CurrentUser>
    private(set) var cookies: [String: UIDCookie]

    /// The file's shape. `signedOut`: the anonymous user `logOut` named, whom nothing identified to the ledger yet
    /// (so a launch does not upload the device's purchases for them: they stay with the user who logged out).
    struct CurrentUser: Codable, Equatable {
        var userID: String?
        var signedOut: Bool?
    }

    init(files: LedgerFiles) {
        cookiesFile = files.cookies
        currentFile = files.currentUser
        cookies = cookiesFile.read() ?? [:]
    }

    /// The user `configure(userID: nil)` resumes: the last one configured, logged in or named by `logOut`; from an
    /// SDK older than the file, the anonymous user of a kept cookie.
    var lastUser: CurrentUser? {
        if let kept = currentFile.read() { return kept }
        return cookies.values.first { $0.userID.hasPrefix("anon-") }.map { CurrentUser(userID: $0.userID) }
    }

    func remember(current userID: String?, signedOut: Bool = false) throws {
        try currentFile.write(CurrentUser(userID: userID, signedOut: signedOut ? true : nil))
    }

    /// The user's cookie, if it is still valid.
    func cookie(for user: String) -> UIDCookie? {
        guard let cookie = cookies[user], cookie.isUsable(for: user) else { return nil }
        return cookie
    }

    /// An upload's cookie: its user's usable one; a receipt falls back to any kept for its user (the answer renews it).
    func cookie(forUpload upload: PendingUpload) -> UIDCookie? {
        let usable = upload.userID.flatMap { cookie(for: $0) }
        guard usable == nil, case .receipt = upload.payload else { return usable }
        return cookies.values.first { $0.userID == upload.userID }
    }

    mutating func keep(_ cookie: UIDCookie, now: Date = Date()) throws {
        cookies[cookie.userID] = cookie
        // Expired cookies are dropped so the file does not grow with every user ever seen on the device.
        cookies = cookies.filter { $0.value.expires.map { $0 > now } ?? false }
        try cookiesFile.write(cookies)
    }
}
