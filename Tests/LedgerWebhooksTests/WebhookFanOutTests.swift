import LedgerDomain
import LedgerPrivacy
import LedgerStore
import LedgerStoreTestSupport
import LedgerTenancy
@testable import LedgerWebhooks
import PostgresClient
import Crypto
import Synchronization
import Testing
import UTCTime

/// The fan-out's batches, driven one at a time.
@Suite struct WebhookFanOutTests {
    private static func fanOutCheckpoint(_ pool: PostgresPool) async throws -> LogCheckpoint? {
        try await pool.query("SELECT transaction_id, position FROM ledger.webhook_fanout").first
            .map { LogCheckpoint(transactionID: try $0.decode(UInt64.self, at: 0), position: try $0.decode(Int64.self, at: 1)) }
    }

    /// Apps of one account, by name.
    private static func apps(_ names: [String], _ pool: PostgresPool) async throws -> [AppRecord] {
        let tenancy = TenancyStore(pool: pool)
        let account = try await tenancy.createAccount(name: "Acme")
        var apps: [AppRecord] = []
        for name in names { apps.append(try await tenancy.createApp(.init(accountID: account.id, name: name, bundleID: "com.acme.\(name)"))) }
        return apps
    }

    private static func createEndpoint(app: String, _ pool: PostgresPool) async throws {
        _ = try await WebhookStore.testing(pool).createEndpoint(
            app: app, url: "https://hooks.example.com/ledger", description: nil, eventTypes: [], environments: ["production"])
    }

    /// With no enabled endpoint, one batch moves the checkpoint to the projections' frontier without reading the
    /// events (none could make a delivery); once an endpoint is enabled, batches read the events again.
    @Test func withoutAnEnabledEndpointABatchSkipsToTheFrontierWithoutReadingEvents() async throws {
        let fixture = try await StoreFixture.make()
        let pool = fixture.store.pool
        let app = try await Self.apps(["pro"], pool)[0]
        for index in 0..<5 {
            _ = try await fixture.store.append(app: app.id, stream: "stream-\(index)", events: [event("before-\(index)")])
        }
        let worker = ProjectionWorker(pool: pool, runners: ProjectionCatalog.runners())
        _ = try await worker.catchUpThroughNow()
        let newest = try await fixture.store.readForward(after: .start, limit: 100).last?.checkpoint
        let fanOut = WebhookFanOut(
            pool: pool, identities: IdentityStore(pool: pool, keys: MasterKeySource(key: SymmetricKey(size: .bits256))), batchSize: 2,
            render: { _, _ in "{}" })

        let skipped = try await pool.withConnection { try fanOut.batch(on: $0) }
        #expect(skipped == (0, 0) as (Int, Int), "a batch without endpoints read events")
        #expect(try await Self.fanOutCheckpoint(pool) == newest, "the checkpoint is not at the frontier")

        // An endpoint, then two new events: a batch reads them.
        try await Self.createEndpoint(app: app.id, pool)
        for index in 0..<2 {
            _ = try await fixture.store.append(app: app.id, stream: "stream-after-\(index)", events: [event("after-\(index)")])
        }
        _ = try await worker.catchUpThroughNow()
        let read = try await pool.withConnection { try fanOut.batch(on: $0) }
        #expect(read.0 == 2, "with an endpoint, a batch reads the new events")
        #expect(try await Self.fanOutCheckpoint(pool) == fixture.store.readForward(after: .start, limit: 100).last?.checkpoint)
        await fixture.close()
    }

    /// A batch reads only the events of apps with an enabled endpoint; a short read moves the checkpoint past the
    /// other apps' events to the projections' frontier.
    @Test func aBatchReadsOnlyTheEventsOfAppsWithAnEndpoint() async throws {
        let fixture = try await StoreFixture.make()
        let pool = fixture.store.pool
        let apps = try await Self.apps(["pro", "lite"], pool)
        let (hooked, quiet) = (apps[0], apps[1])
        try await Self.createEndpoint(app: hooked.id, pool)
        for index in 0..<3 {
            _ = try await fixture.store.append(app: quiet.id, stream: "quiet-\(index)", events: [event("quiet-\(index)")])
        }
        _ = try await fixture.store.append(app: hooked.id, stream: "hooked", events: [event("hooked")])
        _ = try await fixture.store.append(app: quiet.id, stream: "quiet-last", events: [event("quiet-last")])
        _ = try await ProjectionWorker(pool: pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
        let fanOut = WebhookFanOut(
            pool: pool, identities: IdentityStore(pool: pool, keys: MasterKeySource(key: SymmetricKey(size: .bits256))), batchSize: 2,
            render: { _, _ in "{}" })

        let read = try await pool.withConnection { try fanOut.batch(on: $0) }
        #expect(read.0 == 1, "the batch read \(read.0) events, not only the one of the app with an endpoint")
        #expect(
            try await Self.fanOutCheckpoint(pool) == fixture.store.readForward(after: .start, limit: 100).last?.checkpoint,
            "a short read leaves the checkpoint short of the frontier")
        #expect(try await pool.withConnection { try fanOut.batch(on: $0) } == (0, 0) as (Int, Int))
        await fixture.close()
    }

    /// One batch about several owners: each delivery carries its own owner's id and holdings (read once for the batch,
    /// split by owner), and each owner's sequence continues from the one stored by the batch before.
    @Test func aBatchOfSeveralOwnersGivesEachDeliveryItsOwnOwnerAndSequence() async throws {
        let fixture = try await StoreFixture.make()
        let pool = fixture.store.pool
        let app = try await Self.apps(["pro"], pool)[0]
        try await Self.createEndpoint(app: app.id, pool)
        let identities = IdentityStore(pool: pool, keys: MasterKeySource(key: SymmetricKey(size: .bits256)))
        let pseudonyms = try await identities.pseudonyms(app: app.id, users: ["alice", "bob"])
        let (alice, bob) = (try #require(pseudonyms["alice"]), try #require(pseudonyms["bob"]))
        let rendered = Mutex<[(user: String?, owned: [String], sequence: Int64, previous: Int64?)]>([])
        let fanOut = WebhookFanOut(pool: pool, identities: identities) { change, envelope in
            let owned = change.owned.subscriptions.map(\.originalTransactionID).sorted()
            rendered.withLock { $0.append((change.appUserID, owned, envelope.sequence, envelope.previousSequence)) }
            return "{}"
        }
        let worker = ProjectionWorker(pool: pool, runners: ProjectionCatalog.runners())
        func record(_ events: [(String, String, Int)]) async throws {
            for (id, owner, renewal) in events {
                let facts = TransactionFacts(
                    appUserID: owner, productID: "monthly", transactionID: "\(id)-t\(renewal)", originalTransactionID: id,
                    purchaseDate: Instant(microsecondsSinceEpoch: 1_767_225_600_000_000 + Int64(renewal) * 2_592_000_000_000),
                    expiresDate: Instant(microsecondsSinceEpoch: 1_767_225_600_000_000 + Int64(renewal + 1) * 2_592_000_000_000),
                    signedDate: Instant(microsecondsSinceEpoch: 1_767_225_600_000_000), price: Money(milliunits: 9_990, currency: "USD"))
                let event: LedgerEvent =
                    renewal == 0 ? .subscriptionStarted(SubscriptionStarted(transaction: facts)) : .subscriptionRenewed(Renewal(transaction: facts))
                _ = try await EventRecorder(store: fixture.store).record(
                    app: app.id, [(LedgerStreams.purchase(originalTransactionID: id), event, "\(id)-\(renewal)")],
                    occurredAt: { _ in facts.purchaseDate }, metadata: EventMetadata(source: "test"))
            }
            _ = try await worker.catchUpThroughNow()
        }

        try await record([("a1", alice, 0), ("b1", bob, 0), ("a2", alice, 0)])
        #expect(try await fanOut.catchUp() == 3)
        try await record([("b1", bob, 1), ("a1", alice, 1)])
        #expect(try await fanOut.catchUp() == 2)
        let deliveries = rendered.withLock { $0 }
        #expect(deliveries.map(\.user) == ["alice", "bob", "alice", "bob", "alice"])
        #expect(deliveries.map(\.owned) == [["a1", "a2"], ["b1"], ["a1", "a2"], ["b1"], ["a1", "a2"]])
        #expect(deliveries.map(\.sequence) == [1, 1, 2, 2, 3])
        #expect(deliveries.map(\.previous) == [nil, nil, 1, 1, 2])
        await fixture.close()
    }

    /// A new install's deliveries table has no column statistics (nor after an ANALYZE while it was empty), and
    /// without them the service's generic plan of a delivery's update read every delivery of the endpoint (through
    /// `webhook_deliveries_created`) until autovacuum analyzed it with rows. The fan-out's first deliveries give the
    /// table its statistics: the update reads by key.
    @Test(.disabled(if: CitusTestCluster.isActive, "plans the coordinator's shell table; on Citus the workers plan"))
    func theFirstDeliveriesGiveTheTableItsStatistics() async throws {
        let fixture = try await StoreFixture.make()
        let pool = fixture.store.pool
        try await fixture.superuser.query("ALTER TABLE ledger.webhook_deliveries SET (autovacuum_enabled = off)")
        // Analyzed while empty, as an ANALYZE of the whole database before the first endpoint leaves it: no column
        // statistics, the same plans.
        try await fixture.superuser.query("ANALYZE ledger.webhook_deliveries")
        let app = try await Self.apps(["pro"], pool)[0]
        try await Self.createEndpoint(app: app.id, pool)
        let worker = ProjectionWorker(pool: pool, runners: ProjectionCatalog.runners())
        func purchase(_ indexes: Range<Int>) async throws {
            for index in indexes {
                let facts = TransactionFacts(
                    appUserID: nil, productID: "monthly", transactionID: "p\(index)-t0", originalTransactionID: "p\(index)",
                    purchaseDate: Instant(microsecondsSinceEpoch: 1_767_225_600_000_000),
                    expiresDate: Instant(microsecondsSinceEpoch: 1_769_817_600_000_000),
                    signedDate: Instant(microsecondsSinceEpoch: 1_767_225_600_000_000), price: Money(milliunits: 9_990, currency: "USD"))
                let started = LedgerEvent.subscriptionStarted(SubscriptionStarted(transaction: facts))
                _ = try await EventRecorder(store: fixture.store).record(
                    app: app.id, [(LedgerStreams.purchase(originalTransactionID: "p\(index)"), started, "p\(index)")],
                    occurredAt: { _ in facts.purchaseDate }, metadata: EventMetadata(source: "test"))
            }
            _ = try await worker.catchUpThroughNow()
        }
        // The plan a service connection keeps for `WebhookStore.record`'s update of one delivery.
        let planner = PostgresPool(configuration: PostgresConfiguration(connectionString: fixture.connectionString), size: 1)
        func updatePlan() async throws -> String {
            try await planner.withConnection { connection in
                try connection.query("SET plan_cache_mode = force_generic_plan")
                try connection.query(
                    """
                    PREPARE one_delivery(text, text, text) AS UPDATE ledger.webhook_deliveries SET attempts = attempts + 1
                    WHERE app_id = $1 AND endpoint_id = $2 AND delivery_id = $3
                    """)
                defer { _ = try? connection.query("DEALLOCATE one_delivery") }
                return try connection.query("EXPLAIN EXECUTE one_delivery('a', 'b', 'c')").map { try $0.decode(String.self, at: 0) }
                    .joined(separator: "\n")
            }
        }
        // Bodies of a real delivery's size: a table of a few pages is read whole more cheaply than by any index.
        let body = "{\"padding\":\"" + (0..<1_500).map { String(UnicodeScalar(UInt8(97 + $0 * 7 % 26))) }.joined() + "\"}"
        let fanOut = WebhookFanOut(
            pool: pool, identities: IdentityStore(pool: pool, keys: MasterKeySource(key: SymmetricKey(size: .bits256))),
            render: { _, _ in body })

        // A batch alone (no statistics taken): 120 deliveries, and the update's plan is not by key.
        try await purchase(0..<120)
        #expect(try await pool.withConnection { try fanOut.batch(on: $0) } == (120, 120) as (Int, Int))
        let before = try await updatePlan()
        #expect(!before.contains("webhook_deliveries_pkey"), "without statistics the update was planned by key already: \(before)")

        // The fan-out's round, which makes a delivery, takes them.
        try await purchase(120..<121)
        #expect(try await fanOut.catchUp() == 1)
        let after = try await updatePlan()
        #expect(after.contains("Index Scan using webhook_deliveries_pkey"), "\(after)")
        await planner.shutdown()
        await fixture.close()
    }
}

extension WebhookStore {
    /// A store over `pool` whose bodies open under a master key of the test's own (the fixtures' databases hold no
    /// other sealed data).
    static func testing(_ pool: PostgresPool) -> WebhookStore {
        WebhookStore(pool: pool, identities: IdentityStore(pool: pool, keys: MasterKeySource(key: SymmetricKey(size: .bits256))))
    }
}
