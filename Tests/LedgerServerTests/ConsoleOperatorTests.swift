import Foundation
import HTTPTypes
import HummingbirdTesting
import LedgerOperators
import LedgerPrivacy
import LedgerServerTestSupport
import PostgresClient
import Testing
import UTCTime

/// Operators in the console: sign-in with a password and a one-time code, the role enforced on the server for each
/// write, and a disabled operator's session stopped at its next request.
@Suite struct ConsoleOperatorTests {
    static let password = "correct horse battery staple"

    /// Signs `name` in with `password` and `code`; the session, or the refusal.
    static func signIn(_ api: APIClient, name: String, password: String = Self.password, code: String?) async throws
        -> (APIResponse, ConsoleTests.Session?)
    {
        let page = try await api.send(.get, "/console/sign-in")
        let nonceCookie = try #require(ConsoleTests.cookie(page, "ledger_console_signin")).split(separator: ";")[0]
        let nonce = try #require(ConsoleTests.csrf(in: page.text))
        var fields = [("csrf", nonce), ("name", name), ("password", password)]
        if let code { fields.append(("code", code)) }
        let answer = try await ConsoleTests.post(api, "/console/sign-in", cookie: String(nonceCookie), fields)
        guard answer.status == .seeOther, let set = ConsoleTests.cookie(answer, "ledger_console") else { return (answer, nil) }
        let cookie = String(set.split(separator: ";")[0])
        let customers = try await api.send(.get, "/console/customers", headers: [.cookie: cookie])
        return (answer, ConsoleTests.Session(cookie: cookie, csrf: try #require(ConsoleTests.csrf(in: customers.text))))
    }

    /// Adds an operator; its current one-time code when it has one.
    static func add(_ harness: APIHarness, _ name: String, _ role: OperatorRole, oneTimePassword: Bool = true) async throws -> String? {
        let store = OperatorStore(pool: harness.pool, masterKey: harness.masterKey)
        _ = try await store.add(
            name: name, role: role, password: password, oneTimePassword: oneTimePassword, by: .shell(user: "test"), at: harness.clock.now)
        guard oneTimePassword else { return nil }
        let sealed = try #require(
            try await harness.pool.query("SELECT totp_sealed FROM ledger.operators WHERE name = \(name)").first?.decode([UInt8].self, at: 0))
        let secret = String(decoding: try SecretBox(key: harness.masterKey).open(sealed), as: UTF8.self)
        return OneTimePassword(secret: secret).code(step: OneTimePassword.step(at: harness.clock.now))
    }

    @Test func anOperatorSignsInWithPasswordAndCodeAndIsRecordedByName() async throws {
        let harness = try await APIHarness.make(now: ConsoleTests.february2)
        try await harness.test { api in
            let code = try #require(try await Self.add(harness, "fiona", .finance))
            // A wrong code, a missing code, a wrong password, an unknown name: the same 401 and the same words.
            for (name, password, attempt) in [
                ("fiona", Self.password, "000000"), ("fiona", Self.password, nil), ("fiona", "not the password!", code),
                ("nobody", Self.password, code)
            ] as [(String, String, String?)] {
                let (refused, session) = try await Self.signIn(api, name: name, password: password, code: attempt)
                #expect(refused.status == .unauthorized && session == nil)
                #expect(refused.text.contains("The name, the password or the one-time password is wrong."))
                // Each attempt judged alone, not slowed down by the ones before (SignInThrottleTests covers that).
                try await OperatorStore(pool: harness.pool, masterKey: harness.masterKey).unlock(
                    name: name, by: .shell(user: "test"), at: Instant(secondsSinceEpoch: 1_795_000_000))
            }
            let (answer, session) = try await Self.signIn(api, name: "fiona", code: code)
            #expect(answer.status == .seeOther)
            let signedIn = try #require(session)
            // The same code a second time is refused (used once).
            #expect(try await Self.signIn(api, name: "fiona", code: code).0.status == .unauthorized)
            let operations = try await api.send(.get, "/console/operations", headers: signedIn.headers)
            #expect(operations.text.contains("<td>fiona</td><td>finance</td><td>console</td><td>sign_in</td>"), "\(operations.text)")
            #expect(operations.text.contains("<td>sign_in_refused</td>"))
        }
    }

    @Test func eachWriteNeedsItsRoleAndARefusalWritesNothing() async throws {
        let harness = try await APIHarness.make(now: ConsoleTests.february2)
        try await harness.test { api in
            let tenant = try await api.tenant()
            _ = try await Self.add(harness, "sam", .support, oneTimePassword: false)
            let financeCode = try #require(try await Self.add(harness, "fiona", .finance))
            let support = try #require(try await Self.signIn(api, name: "sam", code: nil).1)
            let finance = try #require(try await Self.signIn(api, name: "fiona", code: financeCode).1)
            let month = [("month", "2026-01"), ("account", tenant.accountID), ("confirm", "yes")]

            let refused = try await ConsoleTests.post(api, "/console/finance/finalize", cookie: support.cookie, month + [("csrf", support.csrf)])
            #expect(refused.status == .forbidden)
            #expect(refused.text.contains("This needs the finance role; you are signed in with the support role."))
            let keys = try await ConsoleTests.post(
                api, "/console/operations/apps/\(tenant.appID)/keys", cookie: finance.cookie,
                [("csrf", finance.csrf), ("kind", "secret"), ("name", "x")])
            #expect(keys.status == .forbidden && keys.text.contains("This needs the admin role"))
            let invoices = try await api.send(.get, "/v1/admin/invoices?month=2026-01", headers: APIClient.admin)
            #expect(invoices.status == .ok && !invoices.text.contains("\"finalized\""), "\(invoices.text)")

            // Reads are everyone's; the finance operator finalizes.
            #expect(try await api.send(.get, "/console/finance", headers: support.headers).status == .ok)
            let finalized = try await ConsoleTests.post(api, "/console/finance/finalize", cookie: finance.cookie, month + [("csrf", finance.csrf)])
            #expect(finalized.status == .seeOther, "\(finalized.text)")
        }
    }

    @Test func aDisabledOperatorsSessionStopsAtItsNextRequest() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            _ = try await Self.add(harness, "sam", .support, oneTimePassword: false)
            let session = try #require(try await Self.signIn(api, name: "sam", code: nil).1)
            #expect(try await api.send(.get, "/console/customers", headers: session.headers).status == .ok)
            try await OperatorStore(pool: harness.pool, masterKey: harness.masterKey).disable(
                name: "sam", by: .shell(user: "test"), at: harness.clock.now)
            let after = try await api.send(.get, "/console/customers", headers: session.headers)
            #expect(after.status == .seeOther && after.headers[.location] == "/console/sign-in")
            #expect(try await Self.signIn(api, name: "sam", code: nil).0.status == .unauthorized)
        }
    }
}

@Suite struct ConsoleSessionEndTests {
    @Test func aSessionEndsAfterThirtyMinutesWithoutARequest() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            _ = try await ConsoleOperatorTests.add(harness, "sam", .support, oneTimePassword: false)
            let session = try #require(try await ConsoleOperatorTests.signIn(api, name: "sam", code: nil).1)
            harness.clock.advance(seconds: 29 * 60)
            #expect(try await api.send(.get, "/console/customers", headers: session.headers).status == .ok)
            harness.clock.advance(seconds: 30 * 60 + 1)
            let idle = try await api.send(.get, "/console/customers", headers: session.headers)
            #expect(idle.status == .seeOther && idle.headers[.location] == "/console/sign-in")
        }
    }

    @Test func signingOutEverywhereEndsEveryOneOfTheOperatorsSessions() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            _ = try await ConsoleOperatorTests.add(harness, "sam", .support, oneTimePassword: false)
            _ = try await ConsoleOperatorTests.add(harness, "ann", .auditor, oneTimePassword: false)
            let laptop = try #require(try await ConsoleOperatorTests.signIn(api, name: "sam", code: nil).1)
            let phone = try #require(try await ConsoleOperatorTests.signIn(api, name: "sam", code: nil).1)
            let other = try #require(try await ConsoleOperatorTests.signIn(api, name: "ann", code: nil).1)
            let page = try await api.send(.get, "/console/customers", headers: laptop.headers)
            #expect(page.text.contains("formaction=\"/console/sign-out-everywhere\""))
            let out = try await ConsoleTests.post(api, "/console/sign-out-everywhere", cookie: laptop.cookie, [("csrf", laptop.csrf)])
            #expect(out.status == .seeOther && out.headers[.location] == "/console/sign-in")
            for session in [laptop, phone] {
                #expect(try await api.send(.get, "/console/customers", headers: session.headers).status == .seeOther)
            }
            #expect(try await api.send(.get, "/console/customers", headers: other.headers).status == .ok)
        }
    }
}

@Suite struct ConsoleSignInThrottleTests {
    @Test func repeatedFailuresAreAnswered429AndAnAdminUnlocks() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            _ = try await ConsoleOperatorTests.add(harness, "sam", .support, oneTimePassword: false)
            for _ in 0..<3 {
                #expect(try await ConsoleOperatorTests.signIn(api, name: "sam", password: "wrong password!!", code: nil).0.status == .unauthorized)
            }
            let slowed = try await ConsoleOperatorTests.signIn(api, name: "sam", code: nil)
            #expect(slowed.0.status == .tooManyRequests && slowed.0.text.contains("Too many failed sign-ins. Try again after"))
            try await OperatorStore(pool: harness.pool, masterKey: harness.masterKey).unlock(
                name: "sam", by: .shell(user: "test"), at: Instant(secondsSinceEpoch: 1_795_000_000))
            #expect(try await ConsoleOperatorTests.signIn(api, name: "sam", code: nil).0.status == .seeOther)
        }
    }

    @Test func wrongBreakGlassTokensAtSignInSlowDownTheirAddress() async throws {
        let harness = try await APIHarness.make()
        // Over real HTTP: the throttle counts the connection's address.
        try await harness.application.test(.live) { client in
            let api = try APIClient(live: client, harness: harness)
            for _ in 0..<3 { #expect(try await ConsoleTests.signIn(api, token: "not the token").0.status == .unauthorized) }
            let slowed = try await ConsoleTests.signIn(api)
            #expect(slowed.0.status == .tooManyRequests && slowed.1 == nil, "even the right token waits")
            harness.clock.advance(seconds: 2)
            #expect(try await ConsoleTests.signIn(api).1 != nil)
            let refused = try await OperatorActionLog(pool: harness.pool).list(OperatorActionFilter(action: "sign_in_refused"), limit: 10)
            #expect(refused.count == 3 && refused.allSatisfy { $0.detail == "break-glass" && !$0.actor.sourceAddress.isEmpty })
        }
        await harness.pool.shutdown()
    }
}
