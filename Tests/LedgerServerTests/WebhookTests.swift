import AppStoreSamples
import EmbeddedPostgres
import Foundation
import HTTPTypes
import LedgerServer
import LedgerServerTestSupport
import LedgerWebhooks
import PostgresClient
import Testing

/// Webhooks to a backend, in-process: endpoints through the API, deliveries to a real receiver on loopback.
@Suite struct WebhookTests {
    static let jan1 = AppStorePayloads.jan1
    static let day = AppStorePayloads.day
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `count` notifications for one user's subscription: a purchase, then renewals a month apart.
    static func history(_ signer: AppStoreTestSigner, user: String, original: Int, count: Int, from month: Int = 0) throws -> [String] {
        try (month..<(month + count)).map { k in
            let signed = jan1 + Int64(k) * 30 * day + 1000
            return try signer.notification(
                type: k == 0 ? "SUBSCRIBED" : "DID_RENEW", subtype: k == 0 ? "INITIAL_BUY" : nil, signed: signed,
                transactionJSON: AppStorePayloads.transaction(
                    id: "\(original + k)", original: "\(original)", purchase: "\(signed - 500)", expires: signed + 31 * day, token: user,
                    signed: signed))
        }
    }

    static func post(_ api: APIClient, app: String, _ notifications: [String]) async throws {
        for notification in notifications {
            let answer = try await api.send(.post, "/v1/apps/\(app)/notifications", json: #"{"signedPayload":"\#(notification)"}"#)
            #expect(answer.status == .ok, "\(answer.text)")
        }
    }

    /// Waits (polling the database) until the fan-out has passed the newest event and no delivery is left unsent.
    static func allDelivered(_ pool: PostgresPool, timeout: Duration = .seconds(60)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let done = try await pool.query("""
                SELECT (SELECT (transaction_id, position) FROM ledger.webhook_fanout)
                           >= (SELECT (transaction_id, position) FROM ledger.events ORDER BY transaction_id DESC, position DESC LIMIT 1)
                       AND NOT EXISTS (SELECT FROM ledger.webhook_deliveries WHERE status <> 'succeeded')
                """)[0].decode(Bool?.self, at: 0) ?? false
            if done { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test(.timeLimit(.minutes(3))) func everyChangeReachesTheReceiverInOrderPerUserSignedAsStandardWebhooks() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        receiver.failRandomly(0.3)
        let harness = try await APIHarness.make()
        let users = (0..<4).map { "0000000\($0)-2b7a-4c1e-9d3a-1b2c3d4e5f60" }
        try await harness.test { api in
            let tenant = try await api.tenant(tokenPolicy: "token_is_app_user_id")
            let created = try await api.send(.post, "/v1/apps/\(tenant.appID)/webhooks", headers: tenant.secret,
                                             json: #"{"url":"\#(receiver.url)","description":"backend"}"#)
            #expect(created.status == .created, "\(created.text)")
            let oldSecret = try #require(created.string("secret"))
            let endpointID = try #require(created.string("endpoint_id"))
            let dispatcher = WebhookDispatcher(pool: harness.pool, settings: .loopback, render: WebhookPayload.render)
            let running = Task { await dispatcher.run() }
            for (index, user) in users.enumerated() {
                try await Self.post(api, app: tenant.appID, try Self.history(harness.signer, user: user, original: 1000 * (index + 1), count: 4))
            }
            try await harness.project()
            dispatcher.wake()
            #expect(try await Self.allDelivered(harness.pool))
            let firstRound = receiver.accepted.count
            #expect(receiver.refused > 0, "the receiver refused none: the retries went untested")

            // A rotation: what is sent next is signed with the old and the new secret.
            let rotated = try await api.send(.post, "/v1/apps/\(tenant.appID)/webhooks/\(endpointID)/rotate-secret", headers: tenant.secret)
            let newSecret = try #require(rotated.string("secret"))
            #expect(newSecret != oldSecret && newSecret.hasPrefix("whsec_"))
            try await Self.post(api, app: tenant.appID, try Self.history(harness.signer, user: users[0], original: 1000, count: 2, from: 4))
            try await harness.project()
            dispatcher.wake()
            #expect(try await Self.allDelivered(harness.pool))
            running.cancel()
            await running.value

            let messages = receiver.accepted
            let stored = try await harness.pool.query("SELECT delivery_id, app_user_id, sequence FROM ledger.webhook_deliveries")
            #expect(Set(messages.map(\.id)) == Set(try stored.map { try $0.decode(String.self, at: 0) }), "every delivery arrived, no other")
            #expect(WebhookReceiver.orderProblems(messages).isEmpty, "\(WebhookReceiver.orderProblems(messages).prefix(5))")
            let last = try #require(messages.last { ($0.data["app_user_id"] as? String) == users[0] })
            #expect(last.json["type"] as? String == "subscription.renewed")
            let subscription = try #require(last.data["subscription"] as? [String: Any])
            #expect(subscription["original_transaction_id"] as? String == "1000")
            #expect(((last.data["user"] as? [String: Any])?["products_status"] as? [[String: Any]])?.first?["id"] as? String == "monthly")

            // An independent receiver's check (the `standardwebhooks` package from PyPI).
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let before = WebhookReceiver.subset(messages.prefix(firstRound))
            let after = WebhookReceiver.subset(messages.dropFirst(firstRound))
            try before.verificationFile(secrets: [oldSecret], at: scratch.appendingPathComponent("before.json").path)
            try after.verificationFile(secrets: [oldSecret, newSecret], at: scratch.appendingPathComponent("after.json").path)
            for file in ["before.json", "after.json"] {
                let result = try await ProcessRunner.runOnThread([
                    "/usr/bin/env", "bash", Self.repository.appendingPathComponent("scripts/verify-webhooks.sh").path,
                    scratch.appendingPathComponent(file).path,
                ])
                #expect(result.status == 0, "\(file): \(result.output)")
            }
            // A tampered body fails the same check.
            var forged = messages[0]
            forged.body = forged.body.replacingOccurrences(of: "\"sequence\":1", with: "\"sequence\":2")
            try WebhookReceiver.subset([forged]).verificationFile(secrets: [oldSecret], at: scratch.appendingPathComponent("forged.json").path)
            let refused = try await ProcessRunner.runOnThread([
                "/usr/bin/env", "bash", Self.repository.appendingPathComponent("scripts/verify-webhooks.sh").path,
                scratch.appendingPathComponent("forged.json").path,
            ])
            #expect(refused.status != 0)
        }
        await receiver.stop()
    }
}
