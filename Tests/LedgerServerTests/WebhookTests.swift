import AppStoreSamples
import EmbeddedPostgres
import Foundation
import HTTPTypes
import LedgerServer
import LedgerServerTestSupport
import LedgerWebhooks
import PostgresClient
import PostgresTestSupport
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
    static func allDelivered(_ pool: PostgresPool, timeout: Duration = .seconds(180)) async throws -> Bool {
        try await eventually(within: timeout) { try await WebhookProgress.allSent(pool) }
    }

    /// Waits until the delivery `id` succeeded; whether it did within `timeout`.
    static func delivered(_ id: String, _ pool: PostgresPool, timeout: Duration = .seconds(180)) async throws -> Bool {
        try await eventually(within: timeout) {
            try await pool.query("SELECT status FROM ledger.webhook_deliveries WHERE delivery_id = \(id)").first?
                .decode(String.self, at: 0) == "succeeded"
        }
    }

    @Test(.timeLimit(.minutes(10))) func everyChangeReachesTheReceiverInOrderPerUserSignedAsStandardWebhooks() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        receiver.failRandomly(0.3, first: 2)
        let harness = try await APIHarness.make()
        let users = (0..<4).map { "0000000\($0)-2b7a-4c1e-9d3a-1b2c3d4e5f60" }
        try await harness.test { api in
            let tenant = try await api.tenant(tokenPolicy: "token_is_app_user_id")
            let created = try await api.send(
                .post, "/v1/apps/\(tenant.appID)/webhooks", headers: tenant.secret,
                json: #"{"url":"\#(receiver.url)","description":"backend"}"#)
            #expect(created.status == .created, "\(created.text)")
            let oldSecret = try #require(created.string("secret"))
            let endpointID = try #require(created.string("endpoint_id"))
            let dispatcher = WebhookDispatcher(pool: harness.pool, identities: harness.identities, settings: .loopback, render: WebhookPayload.render)
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
            let scratch = URL(fileURLWithPath: TestScratch.path("webhooks"))
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let before = WebhookReceiver.subset(messages.prefix(firstRound))
            let after = WebhookReceiver.subset(messages.dropFirst(firstRound))
            try before.verificationFile(secrets: [oldSecret], at: scratch.appendingPathComponent("before.json").path)
            try after.verificationFile(secrets: [oldSecret, newSecret], at: scratch.appendingPathComponent("after.json").path)
            for file in ["before.json", "after.json"] {
                let result = try await ProcessRunner.runOnThread([
                    "/usr/bin/env", "bash", Self.repository.appendingPathComponent("scripts/verify-webhooks.sh").path,
                    scratch.appendingPathComponent(file).path
                ])
                #expect(result.status == 0, "\(file): \(result.output)")
            }
            // A tampered body fails the same check.
            var forged = messages[0]
            forged.body = forged.body.replacingOccurrences(of: "\"sequence\":1", with: "\"sequence\":2")
            try WebhookReceiver.subset([forged]).verificationFile(secrets: [oldSecret], at: scratch.appendingPathComponent("forged.json").path)
            let refused = try await ProcessRunner.runOnThread([
                "/usr/bin/env", "bash", Self.repository.appendingPathComponent("scripts/verify-webhooks.sh").path,
                scratch.appendingPathComponent("forged.json").path
            ])
            #expect(refused.status != 0)
        }
        await receiver.stop()
    }

    /// A receiver that is slow for one user holds back no other user's deliveries: the dispatcher's window frees a
    /// finished delivery's place at once (sent in rounds, the held delivery held its whole round and every round after).
    @Test(.timeLimit(.minutes(10))) func aUserWhoseDeliveryIsSlowHoldsBackNoOtherUser() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        let slow = "00000000-5105-4c1e-9d3a-1b2c3d4e5f60"
        let others = (1...20).map { "000000\($0 < 10 ? "0" : "")\($0)-2b7a-4c1e-9d3a-1b2c3d4e5f60" }
        receiver.hold(bodiesContaining: slow)
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let tenant = try await api.tenant(tokenPolicy: "token_is_app_user_id")
            let created = try await api.send(
                .post, "/v1/apps/\(tenant.appID)/webhooks", headers: tenant.secret, json: #"{"url":"\#(receiver.url)"}"#)
            #expect(created.status == .created, "\(created.text)")
            var settings = WebhookSettings.loopback
            // Only the window lets the others past the held delivery, not the held request's timeout.
            settings.limits.responseTimeout = .seconds(600)
            #expect(settings.concurrencyPerEndpoint < others.count)
            let dispatcher = WebhookDispatcher(pool: harness.pool, identities: harness.identities, settings: settings, render: WebhookPayload.render)
            let running = Task { await dispatcher.run() }
            // The slow user's delivery comes first in sending order.
            for (index, user) in ([slow] + others).enumerated() {
                try await Self.post(api, app: tenant.appID, try Self.history(harness.signer, user: user, original: 1000 * (index + 1), count: 1))
            }
            try await harness.project()
            dispatcher.wake()
            let othersArrived = try await eventually(within: .seconds(120)) {
                Set(receiver.accepted.compactMap { $0.data["app_user_id"] as? String }).isSuperset(of: others)
            }
            #expect(othersArrived, "\(receiver.accepted.count) of \(others.count) other users' deliveries arrived")
            #expect(receiver.heldCount == 1 && !receiver.accepted.contains { $0.body.contains(slow) })
            receiver.release()
            #expect(try await Self.allDelivered(harness.pool))
            running.cancel()
            await running.value
            let stored = try await harness.pool.query("SELECT delivery_id FROM ledger.webhook_deliveries")
            #expect(receiver.accepted.map(\.id).sorted() == (try stored.map { try $0.decode(String.self, at: 0) }).sorted(), "each once")
            #expect(WebhookReceiver.orderProblems(receiver.accepted).isEmpty, "\(WebhookReceiver.orderProblems(receiver.accepted).prefix(5))")
        }
        await receiver.stop()
    }

    /// A refund, like a link or a transfer, names an original transaction id without saying whether it is a
    /// subscription: the message about a one-time purchase's refund carries the purchase, its product and its
    /// environment, so that an endpoint filtering by environment gets it or not like the purchase itself.
    @Test(.timeLimit(.minutes(10))) func aOneTimePurchasesRefundIsAboutThePurchaseAndFilteredByItsEnvironment() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        let harness = try await APIHarness.make()
        let user = "0000000a-2b7a-4c1e-9d3a-1b2c3d4e5f60"
        try await harness.test { api in
            let tenant = try await api.tenant(tokenPolicy: "token_is_app_user_id")
            var endpoints: [String: String] = [:]
            for environment in ["sandbox", "production"] {
                let created = try await api.send(
                    .post, "/v1/apps/\(tenant.appID)/webhooks", headers: tenant.secret,
                    json: #"{"url":"\#(receiver.url)","environments":["\#(environment)"]}"#)
                #expect(created.status == .created, "\(created.text)")
                endpoints[environment] = try #require(created.string("endpoint_id"))
            }
            let bought = Self.jan1 + 1000
            let lifetime = { (signed: Int64, revoked: Int64?) in
                AppStorePayloads.transaction(
                    id: "5001", original: "5001", product: "lifetime", type: "Non-Consumable", purchase: "\(bought)",
                    originalPurchase: bought, expires: nil, token: user, revocation: revoked,
                    revocationReason: revoked.map { _ in 0 }, signed: signed)
            }
            try await Self.post(
                api, app: tenant.appID,
                [
                    try harness.signer.notification(type: "ONE_TIME_CHARGE", signed: bought, transactionJSON: lifetime(bought, nil)),
                    try harness.signer.notification(
                        type: "REFUND", signed: bought + Self.day,
                        transactionJSON: lifetime(bought + Self.day, bought + Self.day))
                ])
            let dispatcher = WebhookDispatcher(pool: harness.pool, identities: harness.identities, settings: .loopback, render: WebhookPayload.render)
            let running = Task { await dispatcher.run() }
            try await harness.project()
            dispatcher.wake()
            #expect(try await Self.allDelivered(harness.pool))
            running.cancel()
            await running.value

            let stored = try await harness.pool.query("SELECT endpoint_id, event_type FROM ledger.webhook_deliveries ORDER BY position")
            let rows = try stored.map { [try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)] }
            #expect(rows.allSatisfy { $0[0] == endpoints["sandbox"] }, "the production endpoint got a sandbox purchase: \(rows)")
            // The purchase's appAccountToken links it to the user: a link, like a refund, names no kind of purchase.
            #expect(rows.map { $0[1] } == ["purchase.non_consumable", "identity.linked", "transaction.refunded"])
            for type in ["identity.linked", "transaction.refunded"] {
                let message = try #require(receiver.accepted.first { $0.json["type"] as? String == type })
                #expect(message.data["product_id"] as? String == "lifetime", "\(type)")
                #expect(message.data["environment"] as? String == "sandbox", "\(type)")
                #expect(message.data["subscription"] is NSNull, "\(type)")
                let purchase = try #require(message.data["purchase"] as? [String: Any], "\(type)")
                #expect(purchase["original_transaction_id"] as? String == "5001")
                #expect(purchase["refunded"] as? Bool == (type == "transaction.refunded"), "\(type)")
            }
        }
        await receiver.stop()
    }

    /// A fan-out that takes long (a backlog after an outage; here, its checkpoint locked) must not let the leases of
    /// the endpoints this instance sends to lapse: another instance would take them and send in parallel.
    @Test(.timeLimit(.minutes(10))) func leasesAreRenewedWhileTheFanOutIsBusy() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let tenant = try await api.tenant()
            let created = try await api.send(
                .post, "/v1/apps/\(tenant.appID)/webhooks", headers: tenant.secret,
                json: #"{"url":"http://127.0.0.1:9/hooks"}"#)
            #expect(created.status == .created, "\(created.text)")
            let dispatcher = WebhookDispatcher(pool: harness.pool, identities: harness.identities, settings: .loopback, render: WebhookPayload.render)
            let running = Task { await dispatcher.run() }
            let leased = try await eventually {
                try await harness.pool.query("SELECT count(*) FROM ledger.webhook_endpoints WHERE lease_owner IS NOT NULL")[0]
                    .decode(Int64.self, at: 0) > 0
            }
            try #require(leased, "the dispatcher never leased the endpoint")
            // The fan-out's checkpoint locked on a connection held until the test is done (`release`), not for a
            // time: the lock lasts exactly as long as the test needs it.
            let (locked, lockTaken) = AsyncStream<Bool>.makeStream()
            let release = DispatchSemaphore(value: 0)
            let holding = Task {
                try await harness.pool.withConnection { connection in
                    defer { lockTaken.finish() }
                    do {
                        try connection.execute("BEGIN; LOCK TABLE ledger.webhook_fanout IN ACCESS EXCLUSIVE MODE")
                    } catch {
                        lockTaken.yield(false)
                        throw error
                    }
                    defer { try? connection.execute("ROLLBACK") }
                    lockTaken.yield(true)
                    release.wait()  // on a thread of the pool's own (libpq's), never the cooperative pool
                }
            }
            defer { release.signal() }
            var lockEvents = locked.makeAsyncIterator()
            try #require(await lockEvents.next() == true, "the checkpoint could not be locked")
            let probe = PostgresPool(configuration: harness.pool.configuration, size: 1)
            defer { Task { await probe.shutdown() } }
            func value(_ sql: String) async throws -> Int64 {
                try await probe.query(PostgresQuery(unsafeSQL: sql))[0].decode(Int64.self, at: 0)
            }
            // Polling the database (`eventually`): neither a lock wait nor a lease renewal announces itself.
            let fanOutWaits = try await eventually {
                try await value("SELECT count(*) FROM pg_locks WHERE relation = 'ledger.webhook_fanout'::regclass AND NOT granted") > 0
            }
            #expect(fanOutWaits, "the fan-out never waited on its locked checkpoint")
            // The lease lasts 2 s (`.loopback`); renewed, it ends at least 3 s after it was first read.
            let leaseUntil = "SELECT (extract(epoch FROM lease_until) * 1000)::int8 FROM ledger.webhook_endpoints"
            let first = try await value(leaseUntil)
            let renewed = try await eventually { try await value(leaseUntil) >= first + 3000 }
            #expect(
                try await value(
                    """
                    SELECT count(*) FROM pg_locks WHERE relation = 'ledger.webhook_fanout'::regclass AND NOT granted
                    """) > 0, "the fan-out stopped waiting before the lease was renewed: the test proved nothing")
            release.signal()
            try await holding.value
            #expect(renewed, "the lease was not renewed while the fan-out waited")
            running.cancel()
            await running.value
        }
    }
}

/// The endpoints' API: what it accepts, what it refuses and who may call it.
@Suite struct WebhookRoutesTests {
    @Test func endpointsAreManagedBySecretKeyAndAdminAndBadInputIsRefused() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let tenant = try await api.tenant()
            let other = try await api.tenant()
            let base = "/v1/apps/\(tenant.appID)/webhooks"
            let created = try await api.send(
                .post, base, headers: tenant.secret,
                json: """
                    {"url":"https://hooks.example.com/ledger","description":"crm","event_types":["subscription.renewed","purchase.consumed"],
                     "environments":["production"]}
                    """)
            #expect(created.status == .created, "\(created.text)")
            let id = try #require(created.string("endpoint_id"))
            #expect(created.string("secret")?.hasPrefix("whsec_") == true)
            #expect(created.json["event_types"] as? [String] == ["purchase.consumed", "subscription.renewed"])
            let shouted = try await api.send(.post, base, headers: tenant.secret, json: #"{"url":"HTTPS://Hooks.example.com/Ledger"}"#)
            #expect(shouted.status == .created, "an upper-case scheme is the same URL: \(shouted.text)")
            #expect(shouted.string("url") == "https://Hooks.example.com/Ledger")
            let shoutedID = try #require(shouted.string("endpoint_id"))
            #expect(try await api.send(.delete, "\(base)/\(shoutedID)", headers: tenant.secret).status == .noContent)

            // Who may call: the app's secret key, or the admin token under /v1/admin; nobody else.
            #expect(try await api.send(.get, base).status == .unauthorized)
            #expect(try await api.send(.get, base, headers: tenant.publicHeaders).status == .forbidden)
            #expect(try await api.send(.get, base, headers: other.secret).status == .forbidden)
            #expect(try await api.send(.get, "/v1/apps/\(other.appID)/webhooks/\(id)", headers: other.secret).status == .notFound)
            let listed = try await api.send(.get, "/v1/admin/apps/\(tenant.appID)/webhooks", headers: APIClient.admin)
            #expect(listed.status == .ok)
            #expect(listed.array("endpoints").map { $0["endpoint_id"] as? String } == [id])
            #expect(listed.array("endpoints").first?["secret"] == nil, "a list shows no secret")
            #expect(try await api.send(.get, "/v1/admin/apps/app_nope/webhooks", headers: APIClient.admin).status == .notFound)

            // Bad input: each a 400 that names the field.
            let refusals: [(String, String)] = [
                (#"{}"#, "url"), (#"{"url":"ftp://x.example.com"}"#, "url"), (#"{"url":"https://user:pw@x.example.com"}"#, "url"),
                (#"{"url":"http://127.0.0.1:9/x"}"#, "LEDGER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES"),
                (#"{"url":"https://x.example.com","environments":[]}"#, "environments"),
                (#"{"url":"https://x.example.com","environments":["staging"]}"#, "environments"),
                (#"{"url":"https://x.example.com","event_types":["DROP TABLE"]}"#, "event_types"),
                (#"{"url":"https://x.example.com","status":"disabled"}"#, "status"),
                (#"{"url":"https://x.example.com","surprise":1}"#, "surprise"),
                (#"{"url":42}"#, "url")
            ]
            var strict = WebhookSettings.loopback
            strict.allowPrivateAddresses = false
            let strictHarness = try await APIHarness.make(database: nil, webhooks: strict)
            try await strictHarness.test { strictAPI in
                let strictTenant = try await strictAPI.tenant()
                for (body, field) in refusals {
                    let answer = try await strictAPI.send(.post, "/v1/apps/\(strictTenant.appID)/webhooks", headers: strictTenant.secret, json: body)
                    #expect(answer.status == .badRequest, "\(body): \(answer.text)")
                    #expect(answer.errorMessage?.contains(field) == true, "\(body): \(answer.errorMessage ?? "")")
                }
            }

            // Update, disable, rotate, delete.
            let patched = try await api.send(
                .patch, "\(base)/\(id)", headers: tenant.secret,
                json: #"{"description":null,"status":"disabled","environments":["sandbox","production"]}"#)
            #expect(patched.status == .ok, "\(patched.text)")
            #expect(patched.json["description"] is NSNull)
            #expect(patched.string("status") == "disabled")
            #expect(patched.string("disabled_reason") != nil)
            #expect(patched.json["environments"] as? [String] == ["production", "sandbox"])
            let enabled = try await api.send(.patch, "\(base)/\(id)", headers: tenant.secret, json: #"{"status":"enabled"}"#)
            #expect(enabled.string("status") == "enabled" && enabled.json["disabled_reason"] is NSNull)
            #expect(try await api.send(.patch, "\(base)/\(id)", headers: tenant.secret, json: #"{"status":"paused"}"#).status == .badRequest)
            let before = try await api.send(.get, "\(base)/\(id)", headers: tenant.secret).string("secret")
            let rotated = try await api.send(.post, "\(base)/\(id)/rotate-secret", headers: tenant.secret)
            #expect(rotated.status == .ok)
            #expect(rotated.string("secret") != before)
            #expect(rotated.string("previous_secret_expires_at") != nil)
            #expect(try await api.send(.get, "\(base)/\(id)/deliveries?status=lost", headers: tenant.secret).status == .badRequest)
            #expect(try await api.send(.get, "\(base)/\(id)/deliveries?limit=0", headers: tenant.secret).status == .badRequest)
            #expect(try await api.send(.get, "\(base)/\(id)/deliveries/msg_nope", headers: tenant.secret).status == .notFound)
            #expect(try await api.send(.post, "\(base)/\(id)/deliveries/msg_nope/redeliver", headers: tenant.secret).status == .notFound)
            #expect(try await api.send(.post, "\(base)/\(id)/redeliver", headers: tenant.secret, json: "{}").status == .badRequest)
            let yesterday = try await api.send(.post, "\(base)/\(id)/redeliver", headers: tenant.secret, json: #"{"since":"yesterday"}"#)
            #expect(yesterday.status == .badRequest)
            #expect(try await api.send(.delete, "\(base)/\(id)", headers: tenant.secret).status == .noContent)
            #expect(try await api.send(.delete, "\(base)/\(id)", headers: tenant.secret).status == .notFound)
            #expect(try await api.send(.get, "\(base)/we_nope/deliveries", headers: tenant.secret).status == .notFound)
        }
    }

    /// Creation and every change of the URL apply delivery's rule (`OutboundPolicy.check`): the host is resolved as
    /// the connection would resolve it, so a name or IPv4 notation that means a loopback address is refused at once,
    /// with the setting that would allow it, rather than accepted and then failed at every attempt.
    @Test func urlsNoDeliveryCouldReachAreRefusedWhenSet() async throws {
        let loopback = [
            "http://localhost/hooks", "http://127.1/hooks", "http://0x7f000001/hooks", "http://2130706433/hooks",
            "http://127.0.0.1/hooks", "http://[::1]/hooks", "HTTP://LOCALHOST:8080/hooks"
        ]
        var strict = WebhookSettings.loopback
        strict.allowPrivateAddresses = false
        try await APIHarness.make(webhooks: strict).test { api in
            let tenant = try await api.tenant()
            let base = "/v1/apps/\(tenant.appID)/webhooks"
            let created = try await api.send(.post, base, headers: tenant.secret, json: #"{"url":"https://17.253.144.10/ledger"}"#)
            #expect(created.status == .created, "a public address is accepted: \(created.text)")
            let id = try #require(created.string("endpoint_id"))
            for url in loopback {
                for (method, path) in [(HTTPRequest.Method.post, base), (.patch, "\(base)/\(id)")] {
                    let answer = try await api.send(method, path, headers: tenant.secret, json: #"{"url":"\#(url)"}"#)
                    #expect(answer.status == .badRequest, "\(method) \(url): \(answer.text)")
                    #expect(answer.errorCode == "invalid_request", "\(method) \(url): \(answer.text)")
                    #expect(answer.errorMessage?.contains("LEDGER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES=1") == true, "\(method) \(url): \(answer.text)")
                }
            }
            // A name that does not resolve could not be delivered to either: refused, saying so.
            let nowhere = try await api.send(.post, base, headers: tenant.secret, json: #"{"url":"https://hooks.invalid/ledger"}"#)
            #expect(nowhere.status == .badRequest, "\(nowhere.text)")
            #expect(nowhere.errorMessage?.contains("hooks.invalid does not resolve") == true, "\(nowhere.text)")
            let listed = try await api.send(.get, base, headers: tenant.secret)
            #expect(listed.array("endpoints").map { $0["url"] as? String } == ["https://17.253.144.10/ledger"], "nothing refused was stored")
        }
        // With the operator's LEDGER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES=1 (the harness's `.loopback` settings), all are accepted.
        try await APIHarness.make(webhooks: .loopback).test { api in
            let tenant = try await api.tenant()
            for url in loopback {
                let answer = try await api.send(.post, "/v1/apps/\(tenant.appID)/webhooks", headers: tenant.secret, json: #"{"url":"\#(url)"}"#)
                #expect(answer.status == .created, "\(url): \(answer.text)")
            }
        }
    }

    /// A delivery given up is kept; a redelivery (one, or a range) sends it again with the same id and payload.
    @Test(.timeLimit(.minutes(10))) func aGivenUpDeliveryIsInspectedAndRedelivered() async throws {
        var settings = WebhookSettings.loopback
        settings.schedule = RetrySchedule(first: .milliseconds(20), cap: .milliseconds(40), window: .milliseconds(100))
        try await Self.refusingEndpoint(settings: settings, user: "u-1", original: 7000, count: 2) { run in
            let (api, tenant, base, id, receiver) = (run.api, run.tenant, run.base, run.endpointID, run.receiver)
            var givenUp: [[String: Any]] = []
            var pending: [[String: Any]] = [[:]]
            let deadline = ContinuousClock.now + .seconds(60)
            while (givenUp.isEmpty || !pending.isEmpty) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                pending = try await api.send(.get, "\(base)/\(id)/deliveries?status=pending", headers: tenant.secret).array("deliveries")
                givenUp = try await api.send(.get, "\(base)/\(id)/deliveries?status=given_up", headers: tenant.secret).array("deliveries")
            }
            #expect(givenUp.count >= 2 && pending.isEmpty, "every delivery of the user is given up, each after the one before")
            let first = try #require(givenUp.first?["delivery_id"] as? String)
            let detail = try await api.send(.get, "\(base)/\(id)/deliveries/\(first)", headers: tenant.secret)
            #expect(detail.string("status") == "given_up")
            let attempts = detail.array("attempts")
            #expect(attempts.count >= 2)
            #expect(attempts.allSatisfy { $0["status_code"] as? Int == 500 && ($0["error"] as? String)?.hasPrefix("HTTP 500") == true })
            #expect((detail.json["payload"] as? [String: Any])?["type"] as? String == "subscription.started")

            // One, then (once it arrived) a range: a range sends again whatever it covers, delivered or not.
            receiver.failRandomly(0)
            let again = try await api.send(.post, "\(base)/\(id)/deliveries/\(first)/redeliver", headers: tenant.secret)
            #expect(again.status == .accepted)
            run.dispatcher.wake()
            #expect(try await WebhookTests.delivered(first, run.harness.pool))
            #expect(receiver.accepted.map(\.id) == [first])
            let range = try await api.send(.post, "\(base)/\(id)/redeliver", headers: tenant.secret, json: #"{"from_position":0}"#)
            #expect(range.int("redelivered") == givenUp.count)
            run.dispatcher.wake()
            #expect(try await WebhookTests.allDelivered(run.harness.pool))
            run.stop()
            await run.stopped()
            #expect(receiver.accepted.map(\.id) == [first] + givenUp.compactMap { $0["delivery_id"] as? String }, "the same ids, in order")
        }
    }

    /// An endpoint that keeps failing past `disableAfter` is disabled, with the reason, and no longer dispatched.
    @Test(.timeLimit(.minutes(10))) func anEndpointFailingTooLongIsDisabled() async throws {
        var settings = WebhookSettings.loopback
        settings.schedule = RetrySchedule(first: .milliseconds(20), cap: .milliseconds(40), window: .seconds(3600))
        settings.disableAfter = .milliseconds(200)
        try await Self.refusingEndpoint(settings: settings, user: "u-2", original: 7100, count: 1) { run in
            let (api, tenant, base, id, receiver) = (run.api, run.tenant, run.base, run.endpointID, run.receiver)
            var endpoint = try await api.send(.get, "\(base)/\(id)", headers: tenant.secret)
            let deadline = ContinuousClock.now + .seconds(90)
            while endpoint.string("status") != "disabled" && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                endpoint = try await api.send(.get, "\(base)/\(id)", headers: tenant.secret)
            }
            #expect(endpoint.string("status") == "disabled")
            #expect(endpoint.string("disabled_reason")?.hasPrefix("failing since") == true)
            #expect(endpoint.string("failing_since") != nil)
            // Disabled: the dispatcher lets it go at its next lease round. Once that endpoint's task has ended nothing
            // more can go out to it, so what the receiver got by then is all it will ever get.
            #expect(
                await run.dispatcher.stoppedDispatching(app: tenant.appID, endpoint: id, timeout: .seconds(90)),
                "the dispatcher still sends to a disabled endpoint")
            // The attempt that disabled it is the first one past `disableAfter`; any later one was sent while disabled.
            let row = try await run.harness.pool.query(
                """
                SELECT count(*), count(*) FILTER (WHERE a.attempted_at > e.failing_since + interval '200 milliseconds')
                FROM ledger.webhook_attempts AS a JOIN ledger.webhook_endpoints AS e USING (app_id, endpoint_id)
                WHERE a.app_id = \(tenant.appID) AND a.endpoint_id = \(id)
                """)[0]
            let (attempts, pastTheLimit) = (try row.decode(Int64.self, at: 0), try row.decode(Int64.self, at: 1))
            #expect(pastTheLimit == 1, "\(pastTheLimit - 1) attempt(s) went out after the one that disabled the endpoint")
            #expect(Int64(receiver.refused) == attempts, "every request the receiver got is a recorded attempt, none came later")
        }
    }

    /// What `refusingEndpoint` hands its body.
    struct RefusingRun: Sendable {
        var harness: APIHarness
        var api: APIClient
        var tenant: APIClient.Tenant
        var base: String
        var endpointID: String
        var receiver: WebhookReceiver
        var dispatcher: WebhookDispatcher
        var running: Task<Void, Never>

        func stop() { running.cancel() }
        func stopped() async { await running.value }
    }

    /// A receiver that refuses every delivery, an endpoint of a new app on it, and a dispatcher with `settings`
    /// running once `count` notifications about `user` are recorded and projected; stopped when `body` returns.
    static func refusingEndpoint(
        settings: WebhookSettings, user: String, original: Int, count: Int,
        _ body: @escaping @Sendable (RefusingRun) async throws -> Void
    ) async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        receiver.failRandomly(1)
        let harness = try await APIHarness.make(webhooks: settings)
        try await harness.test { api in
            let tenant = try await api.tenant(tokenPolicy: "token_is_app_user_id")
            let base = "/v1/apps/\(tenant.appID)/webhooks"
            let id = try #require(try await api.send(.post, base, headers: tenant.secret, json: #"{"url":"\#(receiver.url)"}"#).string("endpoint_id"))
            let dispatcher = WebhookDispatcher(pool: harness.pool, identities: harness.identities, settings: settings, render: WebhookPayload.render)
            let run = RefusingRun(
                harness: harness, api: api, tenant: tenant, base: base, endpointID: id, receiver: receiver,
                dispatcher: dispatcher, running: Task { await dispatcher.run() })
            defer { run.stop() }
            let history = try WebhookTests.history(harness.signer, user: user, original: original, count: count)
            try await WebhookTests.post(api, app: tenant.appID, history)
            try await harness.project()
            dispatcher.wake()
            try await body(run)
            run.stop()
            await run.stopped()
        }
        await receiver.stop()
    }
}
