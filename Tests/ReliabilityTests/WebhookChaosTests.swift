import AppStoreSamples
import Foundation
import LedgerServerTestSupport
import PostgresClient
import PostgresTestSupport
import Testing

/// Webhooks through the worst of delivery: a receiver answering 500 at random, the ledger SIGKILLed while deliveries
/// are in flight and restarted, then the receiver down for 30 seconds. Every delivery arrives, per user in order,
/// none missing, and nothing arrives that the ledger did not make.
@Suite struct WebhookChaosTests {
    @Test(.timeLimit(.minutes(8))) func everyDeliveryArrivesInOrderThroughFailuresAKillAndAnOutage() async throws {
        let signer = try AppStoreTestSigner()
        let histories = try SubscriptionHistories(users: ReliabilityScale.pick(ci: 40, full: 200), seed: 23, signer: signer)
        let receiver = WebhookReceiver()
        try await receiver.start()
        let (server, databaseURL) = try await ServerProcess.started(
            databasePrefix: "webhooks", signer: signer,
            environment: [
                "LEDGER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "1", "LEDGER_WEBHOOK_RETRY_FIRST_MS": "100",
                "LEDGER_WEBHOOK_RETRY_CAP_SECONDS": "2", "LEDGER_WEBHOOK_LEASE_SECONDS": "2"
            ])
        defer { server.killNow() }
        let client = HTTPClient(base: server.baseURL, timeout: 15)
        let tenant = try await LedgerTenant.create(client)
        let created = try await client.send(
            "POST", "/v1/apps/\(tenant.appID)/webhooks", headers: tenant.secret,
            body: #"{"url":"\#(receiver.url)"}"#)
        #expect(created.status == 201, "\(created.text)")
        let sender = RetryingSender(client: client, tenant: tenant, counters: LoadCounters())
        let lanes = (0..<4).map { lane in stride(from: lane, to: histories.deliveries.count, by: 4).flatMap { histories.deliveries[$0] } }
        let inspection = LogInspection(databaseURL: databaseURL)

        // 1. A receiver that fails a third of its requests; the ledger killed once some deliveries went out.
        receiver.failRandomly(0.3)
        let first = Task { try await sender.sendAll(lanes.map { Array($0.prefix($0.count / 2)) }) }
        let deadline = ContinuousClock.now + .seconds(120)
        while receiver.accepted.count < 10 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(receiver.accepted.count >= 10, "no delivery arrived before the kill")
        await server.kill()
        try await server.start()
        try await first.value

        // 2. The receiver down for 30 seconds (connections refused) while the rest is sent.
        await receiver.stop()
        let outage = ContinuousClock.now
        try await sender.sendAll(lanes.map { Array($0.dropFirst($0.count / 2)) })
        try await Task.sleep(until: outage + .seconds(30), clock: .continuous)  // the outage's length, not a wait for a result
        receiver.failRandomly(0.1)
        let back = ContinuousClock.now
        try await receiver.start()

        // 3. Everything arrives.
        var done = false
        let end = ContinuousClock.now + .seconds(240)
        while !done && ContinuousClock.now < end {
            let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: databaseURL), size: 1)
            done = try await WebhookProgress.allSent(pool)
            await pool.shutdown()
            if !done { try await Task.sleep(for: .milliseconds(200)) }
        }
        let log = await server.logTail(2000)
        #expect(done, "deliveries still pending: \(log)")
        let stored = Set(try await inspection.query("SELECT delivery_id FROM ledger.webhook_deliveries").map { try $0.decode(String.self, at: 0) })
        let messages = receiver.accepted
        let arrived = Set(messages.map(\.id))
        #expect(stored.count >= histories.all.count, "fewer deliveries than notifications")
        #expect(arrived == stored, "missing \(stored.subtracting(arrived).count), unknown \(arrived.subtracting(stored).count)")
        let problems = WebhookReceiver.orderProblems(messages)
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        let attempts = try await inspection.query(
            """
            SELECT count(*), count(*) FILTER (WHERE status_code IS NULL), count(*) FILTER (WHERE status_code >= 500), max(latency_ms)
            FROM ledger.webhook_attempts
            """)[0]
        #expect(try attempts.decode(Int64.self, at: 2) > 0, "no failed attempt was recorded")
        #expect(!messages.contains { $0.arrivedAt > outage && $0.arrivedAt < back }, "the receiver was not down")
        let tail = await server.logTail(3000)
        #expect(try attempts.decode(Int64.self, at: 1) > 0, "no attempt met the outage: \(tail)")
        ReliabilityScale.report(
            "webhooks",
            [
                "deliveries": stored.count, "messages": messages.count, "refused": receiver.refused,
                "attempts": Int(try attempts.decode(Int64.self, at: 0)), "unanswered": Int(try attempts.decode(Int64.self, at: 1)),
                "longest_attempt_ms": Int(try attempts.decode(Int32?.self, at: 3) ?? 0), "restarts": await server.starts - 1
            ])
        _ = await server.stop()
        await receiver.stop()
    }
}
