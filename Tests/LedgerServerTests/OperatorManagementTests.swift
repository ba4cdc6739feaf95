import Foundation
import HTTPTypes
import LedgerOperators
import LedgerServerTestSupport
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// Operators managed in the console by an admin, on one instance, and held on another at once: two APIs on one
/// database, as two `ledger serve` behind a load balancer.
@Suite struct OperatorManagementTests {
    static let password = ConsoleOperatorTests.password

    @Test func anAdminDisablesAnOperatorInTheConsoleAndItsSessionAndTokenStopOnTheOtherInstance() async throws {
        let url = try await TestDatabase.makeDatabase(prefix: "two_instances")
        let first = try await APIHarness.make(database: url)
        let second = try await APIHarness.make(database: url)
        try await first.test { one in
            try await second.test { two in
                let adminCode = try #require(try await ConsoleOperatorTests.add(first, "ada", .admin))
                _ = try await ConsoleOperatorTests.add(first, "sam", .support, oneTimePassword: false)
                // Sam works on the second instance: a console session and an API token.
                let samSession = try #require(try await ConsoleOperatorTests.signIn(two, name: "sam", code: nil).1)
                let samToken = APIClient.bearer(try await OperatorTokenTests.token(second, "sam", .support))
                #expect(try await two.send(.get, "/console/customers", headers: samSession.headers).status == .ok)
                #expect(try await two.send(.get, "/v1/admin/invoices", headers: samToken).status == .ok)

                // Ada disables sam in the first instance's console.
                let ada = try #require(try await ConsoleOperatorTests.signIn(one, name: "ada", code: adminCode).1)
                let page = try await one.send(.get, "/console/operators", headers: ada.headers)
                #expect(page.text.contains("action=\"/console/operators/sam/disable\""), "an admin is shown the forms")
                let disabled = try await ConsoleTests.post(one, "/console/operators/sam/disable", cookie: ada.cookie, [("csrf", ada.csrf)])
                #expect(disabled.status == .seeOther, "\(disabled.text)")

                // On the second instance, at the very next request.
                let after = try await two.send(.get, "/console/customers", headers: samSession.headers)
                #expect(after.status == .seeOther && after.headers[.location] == "/console/sign-in")
                #expect(try await two.send(.get, "/v1/admin/invoices", headers: samToken).status == .unauthorized)

                // The operator record names who did it, with which role, from where and in which request.
                let rows = try await OperatorActionLog(pool: first.pool).list(OperatorActionFilter(action: "operator.disable"), limit: 5)
                let row = try #require(rows.first)
                #expect(row.actor.name == "ada" && row.actor.role == "admin" && row.actor.channel == .console && row.target == "sam")
                #expect(!row.actor.requestID.isEmpty)
            }
        }
    }

    @Test func anAdminAddsChangesAndUnlocksOperatorsAndEveryoneMakesTokensInTheConsole() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let adminCode = try #require(try await ConsoleOperatorTests.add(harness, "ada", .admin))
            let ada = try #require(try await ConsoleOperatorTests.signIn(api, name: "ada", code: adminCode).1)
            let added = try await ConsoleTests.post(
                api, "/console/operators", cookie: ada.cookie,
                [("csrf", ada.csrf), ("name", "fred"), ("role", "finance"), ("password", Self.password), ("otp", "yes")])
            #expect(added.status == .ok && added.text.contains("otpauth://totp/"), "the new operator's secret is shown once")
            let refused = try await ConsoleTests.post(
                api, "/console/operators", cookie: ada.cookie,
                [("csrf", ada.csrf), ("name", "fred"), ("role", "support"), ("password", Self.password)])
            #expect(refused.status == .conflict && refused.text.contains("already an operator named fred"))
            let weak = try await ConsoleTests.post(
                api, "/console/operators", cookie: ada.cookie, [("csrf", ada.csrf), ("name", "wes"), ("role", "support"), ("password", "short")])
            #expect(weak.status == .badRequest && weak.text.contains("12 characters"))
            let role = try await ConsoleTests.post(
                api, "/console/operators/fred/role", cookie: ada.cookie, [("csrf", ada.csrf), ("role", "auditor")])
            #expect(role.status == .seeOther)
            let store = OperatorStore(pool: harness.pool, masterKey: harness.masterKey)
            #expect(try await store.find(name: "fred")?.role == .auditor)
            // A few wrong passwords slow fred down; ada lifts it.
            for _ in 1...4 { _ = try await ConsoleOperatorTests.signIn(api, name: "fred", password: "not the password!", code: nil) }
            let unlocked = try await ConsoleTests.post(api, "/console/operators/fred/unlock", cookie: ada.cookie, [("csrf", ada.csrf)])
            #expect(unlocked.status == .ok && unlocked.text.contains("Unlocked fred"))

            // Any operator makes a token of their own, shown once, and revokes it; a support operator sees no admin form.
            _ = try await ConsoleOperatorTests.add(harness, "sam", .support, oneTimePassword: false)
            let sam = try #require(try await ConsoleOperatorTests.signIn(api, name: "sam", code: nil).1)
            let page = try await api.send(.get, "/console/operators", headers: sam.headers)
            #expect(page.status == .ok && !page.text.contains("/disable\"") && !page.text.contains("id=new-name"))
            let made = try await ConsoleTests.post(
                api, "/console/operators/me/tokens", cookie: sam.cookie, [("csrf", sam.csrf), ("role", "auditor"), ("days", "7")])
            let text = try #require(made.text.range(of: "lop_").map { String(made.text[$0.lowerBound...].prefix { $0 != "<" }) })
            #expect(try await api.send(.get, "/v1/admin/invoices", headers: APIClient.bearer(text)).status == .ok)
            #expect(
                try await api.send(.post, "/v1/admin/accounts", headers: APIClient.bearer(text), json: #"{"name":"A"}"#).status
                    == .forbidden, "the token carries the narrower role")
            let id = try #require(try await OperatorTokenStore(pool: harness.pool).list(operatorName: "sam").first?.id)
            let revoked = try await ConsoleTests.post(api, "/console/operators/me/tokens/\(id)/revoke", cookie: sam.cookie, [("csrf", sam.csrf)])
            #expect(revoked.status == .seeOther)
            #expect(try await api.send(.get, "/v1/admin/invoices", headers: APIClient.bearer(text)).status == .unauthorized)

            let actions = try await OperatorActionLog(pool: harness.pool).list(OperatorActionFilter(), limit: 100).map(\.action)
            for action in ["operator.add", "operator.set_role", "operator.unlock", "token.create", "token.revoke", "sign_in_refused"] {
                #expect(actions.contains(action), "\(action) is in the operator record")
            }
            // The record's page filters by operator and action.
            let filtered = try await api.send(.get, "/console/operators/record?operator=sam&action=token.create", headers: sam.headers)
            #expect(filtered.status == .ok && filtered.text.contains("token.create") && !filtered.text.contains("operator.add"))
        }
    }

    @Test func supportConsumesACustomersPurchaseInTheConsoleAndTheLogNamesTheOperator() async throws {
        let harness = try await APIHarness.make(now: ConsoleTests.february2)
        try await harness.test { api in
            let tenant = try await api.tenant()
            let bought = try await api.send(
                .post, "/v1/users/alice/external-purchases", headers: tenant.secret, json: ConsoleTests.purchase("pay-1", product: "coins"))
            #expect(bought.status == .created, "\(bought.text)")
            try await harness.project()
            _ = try await ConsoleOperatorTests.add(harness, "sam", .support, oneTimePassword: false)
            let fionaCode = try #require(try await ConsoleOperatorTests.add(harness, "fiona", .finance))
            let sam = try #require(try await ConsoleOperatorTests.signIn(api, name: "sam", code: nil).1)
            let fiona = try #require(try await ConsoleOperatorTests.signIn(api, name: "fiona", code: fionaCode).1)
            let page = "/console/customers/\(tenant.appID)/alice"
            let consume = "\(page)/purchases/pay-1/consume"
            // Finance is not shown the button and is refused; support consumes once.
            #expect(!(try await api.send(.get, page, headers: fiona.headers).text.contains(consume)))
            #expect(try await ConsoleTests.post(api, consume, cookie: fiona.cookie, [("csrf", fiona.csrf)]).status == .forbidden)
            #expect(try await api.send(.get, page, headers: sam.headers).text.contains(consume))
            #expect(try await ConsoleTests.post(api, consume, cookie: sam.cookie, [("csrf", sam.csrf)]).status == .seeOther)
            let again = try await ConsoleTests.post(api, consume, cookie: sam.cookie, [("csrf", sam.csrf)])
            #expect(again.status == .conflict && again.text.contains("already consumed"), "\(again.text)")
            // The consumption is in the user's history with the operator as its actor, and in the operator record.
            let operatorID = try #require(try await OperatorStore(pool: harness.pool, masterKey: harness.masterKey).find(name: "sam")?.id)
            let metadata = try await harness.pool.query(
                "SELECT metadata->>'actor', metadata->>'source' FROM ledger.events WHERE event_type = 'purchase.consumed'")
            #expect(metadata.count == 1)
            #expect(try metadata.first?.decode(String.self, at: 0) == operatorID && metadata.first?.decode(String.self, at: 1) == "console")
            let rows = try await OperatorActionLog(pool: harness.pool).list(OperatorActionFilter(action: "purchase.consume"), limit: 5)
            #expect(rows.count == 1 && rows.first?.actor.name == "sam" && rows.first?.actor.role == "support" && rows.first?.target == "pay-1")
        }
    }
}
