import Foundation
import LedgerStore
import LedgerStoreTestSupport
import LedgerTenancy
import LedgerWebhooks
import PostgresClient
import Testing
import UTCTime

/// `WebhookStore.due`: what a dispatcher round sends, and what it costs with a backlog.
@Suite struct WebhookDueTests {
    /// An app with one endpoint; `deliveries` inserted as (user, sequence, status, seconds from now of the next attempt).
    private func endpoint(_ fixture: StoreFixture, deliveries: [(user: String, sequence: Int64, status: String, dueIn: Int)])
        async throws -> (app: String, endpoint: String)
    {
        let tenancy = TenancyStore(pool: fixture.store.pool)
        let account = try await tenancy.createAccount(name: "Acme")
        let app = try await tenancy.createApp(.init(accountID: account.id, name: "Pro", bundleID: "com.acme.pro"))
        let endpoint = try await WebhookStore.testing(fixture.store.pool).createEndpoint(
            app: app.id, url: "https://hooks.example.com/ledger", description: nil, eventTypes: [], environments: ["production"])
        for (index, delivery) in deliveries.enumerated() {
            try await fixture.superuser.query(
                """
                INSERT INTO ledger.webhook_deliveries (app_id, endpoint_id, delivery_id, position, event_type, app_user_id, order_key,
                    sequence, payload, status, next_attempt_at)
                VALUES (\(app.id), \(endpoint.endpointID), \("msg_\(index)"), \(Int64(index + 1)), 'subscription.renewed',
                        \(delivery.user), \("user:" + delivery.user), \(delivery.sequence), '{}', \(delivery.status),
                        now() + \(Int64(delivery.dueIn)) * interval '1 second')
                """)
        }
        return (app.id, endpoint.endpointID)
    }

    @Test func onlyEachUsersFirstPendingDeliveryIsDueAndOnlyOnceItsTimeHasCome() async throws {
        let fixture = try await StoreFixture.make()
        defer { Task { await fixture.close() } }
        let (app, id) = try await endpoint(
            fixture,
            deliveries: [
                ("ann", 1, "pending", -30), ("ann", 2, "pending", -40), ("ann", 3, "pending", -50),  // 2 and 3 wait for 1
                ("bob", 1, "succeeded", -60), ("bob", 2, "pending", -20),  // 1 is done: 2 is the head
                ("cyd", 1, "pending", 600), ("cyd", 2, "pending", -70),  // the head retries later
                ("dee", 1, "given_up", -80), ("dee", 2, "pending", -10)  // given up: no longer blocks
            ])
        let due = try await WebhookStore.testing(fixture.store.pool).due(app: app, endpoint: id, limit: 10)
        // In sending order: the earliest next attempt first.
        #expect(due.map { "\($0.appUserID ?? "")#\($0.sequence)" } == ["ann#1", "bob#2", "dee#2"])
        let limited = try await WebhookStore.testing(fixture.store.pool).due(app: app, endpoint: id, limit: 2)
        #expect(limited.map(\.deliveryID) == due.prefix(2).map(\.deliveryID))
    }

    /// A dispatcher round's attempts are recorded in one transaction: each delivery's state, and the endpoint's health
    /// judged on the round: all failed starts a streak at the first failure (kept by later failing rounds); any success
    /// ends it; a streak longer than `disableAfter` disables the endpoint.
    @Test func aRoundsAttemptsAreRecordedTogetherAndJudgeTheEndpointOnce() async throws {
        let fixture = try await StoreFixture.make()
        defer { Task { await fixture.close() } }
        let (app, id) = try await endpoint(
            fixture, deliveries: [("ann", 1, "pending", -30), ("bob", 1, "pending", -20), ("cyd", 1, "pending", -10)])
        let store = WebhookStore.testing(fixture.store.pool)
        let t0 = Instant(microsecondsSinceEpoch: 1_700_000_000_000_000)  // past: retries are due at once
        func round(_ codes: [Int?], at seconds: Int64) async throws -> [WebhookDelivery] {
            let due = try await store.due(app: app, endpoint: id, limit: 10)
            let attempts = zip(due, codes).map { delivery, code in
                let attempt = WebhookAttempt(
                    attempt: delivery.attempts + 1, attemptedAt: t0.adding(microseconds: seconds * 1_000_000), statusCode: code,
                    latencyMilliseconds: 5, error: code == nil ? "refused" : nil)
                return WebhookStore.RecordedAttempt(
                    attempt, of: delivery, outcome: attempt.succeeded ? .succeeded : .retry(at: t0.adding(microseconds: -1)))
            }
            try await store.record(attempts, disableAfter: .seconds(60))
            return due
        }
        // Every attempt failed: the streak begins, every delivery is still pending with its attempt counted.
        #expect(try await round([500, nil, 503], at: 0).count == 3)
        var endpoint = try await store.endpoint(app: app, id: id)
        #expect(endpoint.failingSince == t0 && endpoint.status == .enabled)
        let attempts = try await fixture.store.pool.query(
            "SELECT count(*), sum(attempts) FROM ledger.webhook_deliveries WHERE app_id = \(app) AND status = 'pending'")[0]
        #expect(try attempts.decode(Int64.self, at: 0) == 3 && attempts.decode(Int64.self, at: 1) == 3)
        // A later failing round keeps the streak's start; a round with one success ends it and that delivery is done.
        #expect(try await round([500, 500, 500], at: 10).count == 3)
        #expect(try await store.endpoint(app: app, id: id).failingSince == t0)
        #expect(try await round([500, 200, nil], at: 20).count == 3)
        endpoint = try await store.endpoint(app: app, id: id)
        #expect(endpoint.failingSince == nil && endpoint.status == .enabled)
        #expect(try await store.due(app: app, endpoint: id, limit: 10).count == 2)
        // Failing rounds past `disableAfter` from the streak's start disable the endpoint, with the reason.
        #expect(try await round([500, 500], at: 30).count == 2)
        #expect(try await round([nil, nil], at: 100).count == 2)
        endpoint = try await store.endpoint(app: app, id: id)
        #expect(endpoint.status == .disabled && endpoint.disabledReason?.hasPrefix("failing since") == true)
        let recorded = try await fixture.store.pool.query("SELECT count(*) FROM ledger.webhook_attempts WHERE app_id = \(app)")[0]
        #expect(try recorded.decode(Int64.self, at: 0) == 13)
    }

    /// A round reads about as many deliveries as it sends: with 2,000 pending (two per user), `due(limit: 8)` reads
    /// tens of rows, not the backlog (a DISTINCT ON over every pending delivery read all 2,000 on every round).
    @Test func aRoundReadsAboutWhatItSendsNotTheBacklog() async throws {
        let fixture = try await StoreFixture.make()
        defer { Task { await fixture.close() } }
        let users = (0..<1_000).map { "user-\($0)" }
        let (app, id) = try await endpoint(fixture, deliveries: [])
        try await fixture.superuser.query(
            """
            INSERT INTO ledger.webhook_deliveries (app_id, endpoint_id, delivery_id, position, event_type, app_user_id, order_key,
                sequence, payload, next_attempt_at)
            SELECT \(app), \(id), 'msg_' || s || '_' || u, s * 10000 + u, 'subscription.renewed', 'user-' || u, 'user:user-' || u, s, '{}',
                   now() - interval '1 hour' + (s * 10000 + u) * interval '1 millisecond'
            FROM generate_series(1, 2) AS s, generate_series(0, \(Int64(users.count - 1))) AS u
            """)
        try await fixture.superuser.query("ANALYZE ledger.webhook_deliveries")
        let plan = try await fixture.superuser.withConnection { connection in
            try connection.query(
                PostgresQuery(
                    unsafeSQL: "EXPLAIN (ANALYZE, FORMAT JSON) " + WebhookStore.dueSQL,
                    bindings: [
                        app.postgresValue, id.postgresValue, Int64(8).postgresValue
                    ])
            ).first?.decode(String.self, at: 0) ?? ""
        }
        let due = try await WebhookStore.testing(fixture.store.pool).due(app: app, endpoint: id, limit: 8)
        #expect(due.map(\.sequence) == Array(repeating: 1, count: 8))
        #expect(due.map(\.appUserID) == users.prefix(8).map { Optional($0) })
        // Rows the scans of the deliveries read, summed over the plan's nodes on that table.
        let read = Self.rowsRead(plan, relation: "webhook_deliveries")
        #expect(read > 0 && read < 100, "the due statement read \(read) deliveries for a round of 8: \(plan)")
    }

    /// Sum of `Actual Rows × Actual Loops` plus rows removed by filters, over the plan nodes that scan `relation`.
    static func rowsRead(_ planJSON: String, relation: String) -> Int {
        guard let data = planJSON.data(using: .utf8), let root = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]],
            let plan = root.first?["Plan"] as? [String: Any]
        else { return -1 }
        func walk(_ node: [String: Any]) -> Int {
            var total = 0
            if node["Relation Name"] as? String == relation {
                let loops = node["Actual Loops"] as? Int ?? 1
                total += (node["Actual Rows"] as? Int ?? 0) * loops + (node["Rows Removed by Filter"] as? Int ?? 0) * loops
            }
            for child in node["Plans"] as? [[String: Any]] ?? [] { total += walk(child) }
            return total
        }
        return walk(plan)
    }
}
