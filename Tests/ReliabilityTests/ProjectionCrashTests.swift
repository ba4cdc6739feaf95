import AppStoreSamples
import EmbeddedPostgres
import Foundation
import PostgresTestSupport
import Testing

/// Issue 8.4: the projection worker SIGKILLed while a batch transaction is open, again and again, as it catches up
/// a backlog of the whole log. It resumes from its checkpoint: no event applied twice or skipped.
@Suite struct ProjectionCrashTests {
    @Test func workerKilledMidBatchResumesFromItsCheckpoint() async throws {
        let started = ContinuousClock.now
        let userCount = ReliabilityScale.pick(ci: 300, full: 2_000)
        let killPoints = ReliabilityScale.pick(ci: 6, full: 25)
        let signer = try AppStoreTestSigner()
        let histories = try SubscriptionHistories(users: userCount, seed: 44, signer: signer)
        // Small batches: the projections catch up side by side, and with 500-event batches a CI-sized backlog
        // gives too few open batches to kill reliably.
        let (server, databaseURL) = try await ServerProcess.started(
            databasePrefix: "projcrash", signer: signer,
            extraArguments: ["--projection-batch-size", "40"])
        defer { server.killNow() }
        let client = HTTPClient(base: server.baseURL)
        let tenant = try await LedgerTenant.create(client)
        let counters = LoadCounters()
        let lanes = (0..<8).map { lane in stride(from: lane, to: histories.deliveries.count, by: 8).flatMap { histories.deliveries[$0] } }
        try await RetryingSender(client: client, tenant: tenant, counters: counters).sendAll(lanes)
        let inspection = LogInspection(databaseURL: databaseURL)
        try await inspection.waitForProjections()
        await server.stop()

        // The whole log becomes the backlog: projections emptied, checkpoints back to the start.
        try await inspection.execute(
            """
            DELETE FROM ledger.subscriptions; DELETE FROM ledger.purchases;
            DELETE FROM ledger.paying_purchases; DELETE FROM ledger.paying_users;
            UPDATE ledger.projection_checkpoints SET transaction_id = '0', position = 0;
            """)
        let events = try await inspection.eventCount()
        var killsInBatch = 0
        var resumedFrom: [Int] = []
        var lastApplied = 0
        for _ in 0..<killPoints {
            try await server.start()
            // Kill only once this run has applied something beyond the last checkpoint and a batch is open again.
            let deadline = ContinuousClock.now + .seconds(120)
            var inBatch = false
            while ContinuousClock.now < deadline {
                let applied = try await inspection.appliedCounts().values.reduce(0, +)
                #expect(applied >= lastApplied, "a checkpoint moved backwards")
                if applied > lastApplied, try await inspection.batchInProgress() {
                    inBatch = true
                    break
                }
                if try await inspection.projectionsCaughtUp() { break }
                try await Task.sleep(for: .milliseconds(2))
            }
            await server.kill()
            guard inBatch else { break }
            killsInBatch += 1
            let applied = try await inspection.appliedCounts().values.reduce(0, +)
            resumedFrom.append(applied)
            lastApplied = applied
        }
        #expect(killsInBatch >= 2, "the worker was killed inside a batch \(killsInBatch) times")

        try await server.start()
        try await inspection.waitForProjections()
        // Paying users per month: exact, from projections rebuilt through the kills.
        for (month, users) in histories.payingUsers.sorted(by: { $0.key < $1.key }) {
            let draft = try await client.send(
                "GET", "/v1/admin/invoice-drafts?account_id=\(tenant.accountID)&month=\(month)",
                headers: ["Authorization": "Bearer \(LedgerTenant.adminToken)"])
            #expect(draft.json["paying_users"] as? Int == users.count, "\(month): \(draft.text.prefix(300))")
        }
        await server.stop()
        let replay = try await LedgerBinary.run(["replay", "--check"], databaseURL: databaseURL)
        #expect(replay.status == 0 && replay.output.contains("OK"), "\(replay.output)")

        ReliabilityScale.report(
            "projection-crash",
            [
                "notifications": histories.all.count, "events_backlog": events, "kills_mid_batch": killsInBatch,
                "checkpoint_at_last_kill": resumedFrom.last ?? 0, "projections": 3,
                "paying_user_months": histories.payingUsers.count, "rejects": counters.snapshot.rejects,
                "seconds": Int((ContinuousClock.now - started) / .seconds(1))
            ])
    }
}
