import Foundation
import LedgerServer
import Testing

@Suite struct UserCookieTests {
    let cookie = UserCookie(key: Array(repeating: 7, count: 32), lifetime: 3600)

    @Test func anIssuedCookieNamesItsUserUntilItExpires() {
        let issued = cookie.issue(app: "app_a", user: "alice", now: 1000)
        #expect(issued.uid == "alice")
        #expect(issued.expires == 4600)
        #expect(cookie.verify(app: "app_a", uid: issued.uid, signature: issued.signature, now: 4599) == .success("alice"))
        #expect(cookie.verify(app: "app_a", uid: issued.uid, signature: issued.signature, now: 4600) == .failure(.expired))
    }

    @Test func editsForgeriesAndOtherAppsAreRefused() {
        let issued = cookie.issue(app: "app_a", user: "alice", now: 1000)
        #expect(cookie.verify(app: "app_a", uid: "bob", signature: issued.signature, now: 1001) == .failure(.badSignature))
        #expect(cookie.verify(app: "app_b", uid: issued.uid, signature: issued.signature, now: 1001) == .failure(.badSignature))
        let later = issued.signature.replacingOccurrences(of: "4600.", with: "9999999.")
        #expect(cookie.verify(app: "app_a", uid: issued.uid, signature: later, now: 1001) == .failure(.badSignature))
        let otherKey = UserCookie(key: Array(repeating: 8, count: 32)).issue(app: "app_a", user: "alice", now: 1000)
        #expect(cookie.verify(app: "app_a", uid: "alice", signature: otherKey.signature, now: 1001) == .failure(.badSignature))
        #expect(cookie.verify(app: "app_a", uid: "alice", signature: "garbage", now: 1001) == .failure(.malformed))
        #expect(cookie.verify(app: "app_a", uid: nil, signature: nil, now: 1001) == .failure(.missing))
    }

    @Test func userIDsThatCookiesCannotHoldArePercentEncoded() {
        let issued = cookie.issue(app: "app_a", user: "a b;c,\"d\"é", now: 0)
        #expect(!issued.uid.contains(" ") && !issued.uid.contains(";") && !issued.uid.contains(","))
        #expect(cookie.verify(app: "app_a", uid: issued.uid, signature: issued.signature, now: 1) == .success("a b;c,\"d\"é"))
        #expect(
            cookie.setCookieHeaders(uid: issued.uid, signature: issued.signature, expires: issued.expires)
                .allSatisfy { $0.contains("Max-Age=3600") && $0.contains("Path=/") && $0.contains("HttpOnly") })
    }
}
