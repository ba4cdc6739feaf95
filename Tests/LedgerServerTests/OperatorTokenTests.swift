import Foundation
import HTTPTypes
import HummingbirdTesting
import LedgerOperators
import LedgerServerTestSupport
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// The admin API with operators' tokens: each route's writes need their role, a refusal writes nothing, expiry,
/// revocation and a disabled operator stop a token at once, and the admin token is a recorded break-glass.
@Suite struct OperatorTokenTests {
    static func headers(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    /// An operator with `role` and a token carrying `carried` (its own role when nil); the token's text.
    static func token(
        _ harness: APIHarness, _ name: String, _ role: OperatorRole, carrying carried: OperatorRole? = nil, days: Int64 = 30
    ) async throws -> String {
        let operators = OperatorStore(pool: harness.pool, masterKey: harness.masterKey)
        if try await operators.find(name: name) == nil {
            _ = try await operators.add(
                name: name, role: role, password: "correct horse battery staple", by: .shell(user: "test"), at: harness.clock.now)
        }
        return try await OperatorTokenStore(pool: harness.pool).create(
            operatorName: name, role: carried, name: "test", life: .seconds(days * 86_400), by: .shell(user: "test"), at: harness.clock.now
        ).text
    }

    static func accounts(_ harness: APIHarness) async throws -> Int64 {
        try await harness.pool.query("SELECT count(*) FROM ledger.accounts").first?.decode(Int64.self, at: 0) ?? -1
    }

    @Test func eachWriteNeedsItsRoleEveryRoleReadsAndARefusalWritesNothing() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let admin = Self.headers(try await Self.token(harness, "ada", .admin))
            let support = Self.headers(try await Self.token(harness, "sam", .support))
            let finance = Self.headers(try await Self.token(harness, "fiona", .finance))
            let auditor = Self.headers(try await Self.token(harness, "ann", .auditor))
            let narrowed = Self.headers(try await Self.token(harness, "ada", .admin, carrying: .auditor))

            let created = try await api.send(.post, "/v1/admin/accounts", headers: admin, json: #"{"name":"Acme"}"#)
            #expect(created.status == .created, "\(created.text)")
            let before = try await Self.accounts(harness)
            for headers in [support, finance, auditor, narrowed] {
                let refused = try await api.send(.post, "/v1/admin/accounts", headers: headers, json: #"{"name":"Other"}"#)
                #expect(refused.status == .forbidden && refused.text.contains("this needs the admin role"), "\(refused.text)")
            }
            #expect(try await Self.accounts(harness) == before)
            let id = try #require(created.text.range(of: #""id":""#).map { created.text[$0.upperBound...].prefix { $0 != "\"" } })
            for headers in [admin, support, finance, auditor, narrowed] {
                #expect(try await api.send(.get, "/v1/admin/accounts/\(id)", headers: headers).status == .ok)
            }
            // Plans are finance's.
            let plan = #"{"id":"flat","currency":"USD","tiers":[{"from":1,"unit_price_minor":100}]}"#
            #expect(try await api.send(.post, "/v1/admin/plans", headers: admin, json: plan).status == .forbidden)
            #expect(try await api.send(.post, "/v1/admin/plans", headers: finance, json: plan).status == .created)
        }
    }

    @Test func expiryRevocationAndADisabledOperatorStopATokenAtOnce() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let short = try await Self.token(harness, "ada", .admin, days: 1)
            let revoked = try await Self.token(harness, "ada", .admin)
            let other = try await Self.token(harness, "bob", .admin)
            for token in [short, revoked, other] {
                #expect(try await api.send(.get, "/v1/admin/invoices", headers: Self.headers(token)).status == .ok)
            }
            let tokens = OperatorTokenStore(pool: harness.pool)
            for token in try await tokens.list(operatorName: "ada") where token.expiresAt > harness.clock.now.adding(.seconds(2 * 86_400)) {
                try await tokens.revoke(id: token.id, by: .shell(user: "test"), at: harness.clock.now)
            }
            #expect(try await api.send(.get, "/v1/admin/invoices", headers: Self.headers(revoked)).status == .unauthorized)
            #expect(try await api.send(.get, "/v1/admin/invoices", headers: Self.headers(short)).status == .ok)
            harness.clock.advance(seconds: 86_400)
            #expect(try await api.send(.get, "/v1/admin/invoices", headers: Self.headers(short)).status == .unauthorized)
            try await OperatorStore(pool: harness.pool, masterKey: harness.masterKey).disable(
                name: "bob", by: .shell(user: "test"), at: harness.clock.now)
            let disabled = try await api.send(.get, "/v1/admin/invoices", headers: Self.headers(other))
            #expect(disabled.status == .unauthorized && disabled.text.contains("its operator is disabled"))
        }
    }

    @Test func aTokenOfAnOperatorWhoseRoleChangedCarriesOnlyReading() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let token = Self.headers(try await Self.token(harness, "ada", .admin))
            _ = try await OperatorStore(pool: harness.pool, masterKey: harness.masterKey).setRole(
                name: "ada", role: .support, by: .shell(user: "test"), at: Instant(secondsSinceEpoch: 1_795_000_000))
            let refused = try await api.send(.post, "/v1/admin/accounts", headers: token, json: #"{"name":"Acme"}"#)
            #expect(refused.status == .forbidden && refused.text.contains("carries the auditor role"), "\(refused.text)")
        }
    }

    @Test func everyUseOfTheAdminTokenIsRecordedAsBreakGlass() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            #expect(try await api.send(.post, "/v1/admin/accounts", headers: APIClient.admin, json: #"{"name":"Acme"}"#).status == .created)
            #expect(try await api.send(.get, "/v1/admin/invoices", headers: APIClient.admin).status == .ok)
            let record = OperatorActionLog(pool: harness.pool)
            let uses = try await record.list(OperatorActionFilter(action: "break_glass"), limit: 10).reversed()
            #expect(
                uses.map { "\($0.actor.name) \($0.actor.role) \($0.target)" } == [
                    "LEDGER_ADMIN_TOKEN break-glass POST /v1/admin/accounts", "LEDGER_ADMIN_TOKEN break-glass GET /v1/admin/invoices"
                ])
            #expect(uses.allSatisfy { $0.actor.channel == .api && !$0.actor.requestID.isEmpty })
            // The write itself is recorded too, once it succeeded; the read is not.
            let writes = try await record.list(OperatorActionFilter(action: "api.write"), limit: 10)
            #expect(writes.map(\.target) == ["POST /v1/admin/accounts"] && writes.first?.detail.hasSuffix("→ 201") == true)
        }
    }

    @Test func wrongBreakGlassTokensSlowDownTheirAddressButNotOperatorTokens() async throws {
        let harness = try await APIHarness.make()
        // Over real HTTP: the throttle counts the connection's address (in-process requests have none).
        try await harness.application.test(.live) { client in
            let api = try APIClient(live: client, harness: harness)
            let operatorToken = Self.headers(try await Self.token(harness, "ada", .admin))
            for _ in 1...3 {
                #expect(try await api.send(.get, "/v1/admin/invoices", headers: APIClient.bearer("not-the-token")).status == .unauthorized)
            }
            // Now even the right token waits: a guesser cannot tell a right guess from a wrong one.
            let slowed = try await api.send(.get, "/v1/admin/invoices", headers: APIClient.admin)
            #expect(slowed.status == .tooManyRequests && slowed.headers[.retryAfter] == "1", "\(slowed.status) \(slowed.text)")
            #expect(try await api.send(.get, "/v1/admin/invoices", headers: operatorToken).status == .ok, "operators' tokens are not slowed")
            harness.clock.advance(seconds: 2)
            #expect(try await api.send(.get, "/v1/admin/invoices", headers: APIClient.admin).status == .ok)
        }
        await harness.pool.shutdown()
    }

    @Test func aCommittedWriteIsAnsweredAsSuchEvenWhenItsRecordFails() async throws {
        let url = try await TestDatabase.makeDatabase(prefix: "record_fails")
        let harness = try await APIHarness.make(database: url)
        try await harness.test { api in
            let token = Self.headers(try await Self.token(harness, "ada", .admin))
            // The operator record refuses `api.write` rows (as a full disk or a lost connection would, after the write).
            let owner = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
            try owner.execute(
                """
                CREATE FUNCTION ledger.test_refuse_api_write() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.action = 'api.write' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$;
                CREATE TRIGGER test_refuse_api_write BEFORE INSERT ON ledger.operator_actions
                FOR EACH ROW EXECUTE FUNCTION ledger.test_refuse_api_write();
                """)
            let created = try await api.send(.post, "/v1/admin/accounts", headers: token, json: #"{"name":"Acme"}"#)
            #expect(created.status == .created, "the account was made: the answer says so (a retry would make a second)")
            #expect(try await Self.accounts(harness) == 1)
        }
    }
}
