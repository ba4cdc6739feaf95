import AppStoreSamples
import AppStoreServerAPI
import AppStoreServerTestSupport
import AppStoreSync
import AppStoreVerification
import Crypto
import Foundation
import LedgerDomain
import LedgerRecording
import LedgerServer
import LedgerStore
import LedgerTenancy
import Synchronization
import Testing
import UTCTime

/// Reconciliation against the fake's notification history: exactly the missed notifications are recorded.
@Suite(.timeLimit(.minutes(10))) struct ReconcileTests {
    /// 30 notifications Apple sent over the last 30 hours (one an hour, each a renewal of customer A's subscription).
    static func sent(_ world: SyncWorld, now: Instant) throws -> [(uuid: String, signed: Int64, payload: String)] {
        try (1...30).map { index in
            let signed = now.adding(.seconds(-index * 3600)).epochMilliseconds
            let uuid = SyncWorld.uuid(prefix: "10000000", index)
            let payload = try world.signer.notification(
                type: "DID_RENEW", uuid: uuid, signed: signed, transactionJSON: SyncWorld.subscription(1000, index, token: SyncWorld.userA),
                bundleID: SyncWorld.bundleID)
            return (uuid, signed, payload)
        }
    }

    @Test func exactlyTheMissedNotificationsAreRecorded() async throws {
        let world = try await SyncWorld.make(failureRate: 0.2, pageSize: 4)
        let now = Instant(Date())
        let sent = try Self.sent(world, now: now)
        for notification in sent { world.fake.addNotification(signedDate: notification.signed, signedPayload: notification.payload) }
        // The ledger got two thirds of them; Apple gave up on the others.
        let missed = sent.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        for (index, notification) in sent.enumerated() where index % 3 != 0 {
            _ = try await world.recorder.notification(app: world.app, signedPayload: notification.payload, metadata: EventMetadata(source: "test"))
        }
        let before = try await world.events()
        #expect(missed.allSatisfy { before["notification:\($0.uuid)"] == nil })

        let reconciliation = AppStoreReconciliation(recorder: world.recorder, logger: world.logger)
        let summary = try await reconciliation.run(app: world.app, client: try world.client(), since: now.adding(.seconds(-2 * 86_400)), now: now)
        #expect(summary.seen == 30 && summary.missed == 10 && summary.alreadyKnown == 20 && summary.failures.isEmpty)
        let after = try await world.events()
        let added = Set(after.keys).subtracting(before.keys)
        #expect(Set(added.filter { $0.hasPrefix("notification:") }) == Set(missed.map { "notification:\($0.uuid)" }))
        #expect(added.allSatisfy { after[$0]?.source == "appstore.reconcile" })
        #expect(world.fake.calls.filter { $0.path == "/inApps/v1/notifications/history" && $0.status == 200 }.count == 8)  // 30 by 4

        // Again: nothing is missing any more.
        let again = try await reconciliation.run(app: world.app, client: try world.client(), since: now.adding(.seconds(-2 * 86_400)), now: now)
        #expect(again.seen == 30 && again.missed == 0 && again.eventsRecorded == 0)
        // A period holding half of them sees only those.
        let recent = try await reconciliation.run(app: world.app, client: try world.client(), since: now.adding(.seconds(-15.5 * 3600)), now: now)
        #expect(recent.seen == 15)

        let checks = try await world.checkLogAndReadModels()
        #expect(checks.replay == 0 && checks.verify == 0)
        await world.close()
    }

    @Test func serveReconcilesOnceADayAcrossInstancesAndShowsTheLastRunInMetrics() async throws {
        let world = try await SyncWorld.make()
        let now = Instant(Date())
        for notification in try Self.sent(world, now: now) {
            world.fake.addNotification(signedDate: notification.signed, signedPayload: notification.payload)
        }
        let config = try SettingsFile.write(world: world)
        let clients = AppStoreClients(settings: try AppStoreAPISettings.load(path: config), retryPolicy: SyncWorld.retryPolicy, logger: world.logger)
        // Two instances of `serve` on one database.
        var made: [AppStoreService] = []
        for _ in 0..<2 {
            let api = try await world.makeAPI(.init(roots: .init(certificates: world.signer.roots)))
            made.append(AppStoreService(api: api, clients: clients, logger: world.logger))
        }
        let instances = made
        async let first = instances[0].check(appID: world.app.id)
        async let second = instances[1].check(appID: world.app.id)
        let runs = [try await first, try await second].compactMap { $0 }
        #expect(runs.count == 1 && runs.first?.missed == 30)
        // Not due again today, on either.
        #expect(try await instances[0].check(appID: world.app.id) == nil)
        #expect(try await instances[1].check(appID: world.app.id) == nil)
        let run = try #require(try await ReconcileRunStore(pool: world.pool).lastRun(app: world.app.id))
        #expect(run.succeeded == true && run.missed == 30 && run.seen == 30 && run.lastSuccessStartedAt == run.startedAt)

        let metrics = LedgerMetrics.exposition()
        #expect(metrics.contains(#"ledger_appstore_reconcile_last_missed{app="\#(world.app.id)"} 30"#))
        #expect(metrics.contains(#"ledger_appstore_reconcile_last_success{app="\#(world.app.id)"} 1"#))
        #expect(metrics.contains(#"ledger_appstore_reconcile_last_run_timestamp_seconds{app="\#(world.app.id)"}"#))
        await world.close()
    }

    @Test func aFailedRunShowsInMetricsAndIsTriedAgainAnHourLater() async throws {
        let world = try await SyncWorld.make()
        let start = Instant(Date())
        for notification in try Self.sent(world, now: start) {
            world.fake.addNotification(signedDate: notification.signed, signedPayload: notification.payload)
        }
        let now = Mutex(start)
        let api = try await world.makeAPI(
            .init(
                roots: .init(certificates: world.signer.roots), clock: LedgerClock { now.withLock { $0 } }))
        func service(_ config: String) throws -> AppStoreService {
            AppStoreService(
                api: api,
                clients: AppStoreClients(
                    settings: try AppStoreAPISettings.load(path: config),
                    retryPolicy: SyncWorld.retryPolicy, logger: world.logger), logger: world.logger)
        }
        let refused = try service(try SettingsFile.write(world: world, privateKey: P256.Signing.PrivateKey()))
        await #expect(throws: AppStoreSyncError.self) { try await refused.check(appID: world.app.id) }
        #expect(try await ReconcileRunStore(pool: world.pool).lastRun(app: world.app.id)?.succeeded == false)
        #expect(LedgerMetrics.exposition().contains(#"ledger_appstore_reconcile_last_success{app="\#(world.app.id)"} 0"#))

        let fixed = try service(try SettingsFile.write(world: world))
        #expect(try await fixed.check(appID: world.app.id) == nil)  // failed a moment ago
        now.withLock { $0 = $0.adding(.seconds(3_601)) }
        #expect(try await fixed.check(appID: world.app.id)?.missed == 30)
        #expect(LedgerMetrics.exposition().contains(#"ledger_appstore_reconcile_last_success{app="\#(world.app.id)"} 1"#))
        await world.close()
    }

    @Test func theCommandRefusesAPeriodAppleNoLongerKeeps() async throws {
        let world = try await SyncWorld.make()
        let config = try SettingsFile.write(world: world)
        let code = try await ledger([
            "appstore", "reconcile", "--database-url", world.url, "--config", config, "--app", world.app.id,
            "--since", "2020-01-01T00:00:00Z"
        ])
        #expect(code == 2)
        #expect(world.fake.calls.isEmpty)
        await world.close()
    }
}
