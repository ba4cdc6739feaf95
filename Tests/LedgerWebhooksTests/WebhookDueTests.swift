import Foundation
import LedgerStore
import LedgerStoreTestSupport
import LedgerTenancy
import LedgerWebhooks
import PostgresClient
import Testing

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
