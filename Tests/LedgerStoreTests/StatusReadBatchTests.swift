import Foundation
import LedgerDomain
@testable import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// Status reads in flight share one statement (`StatusReadBatcher`): each read's answer must be what a statement of
/// its own gives, whoever else is in the batch: users of other apps, the same user twice, users never named, a
/// pseudonym named under another app's index.
@Suite struct StatusReadBatchTests {
    static let day0 = Instant(microsecondsSinceEpoch: 1_767_225_600_000_000)
    static func day(_ n: Int) -> Instant { day0.adding(microseconds: Int64(n) * 86_400_000_000) }

    static func index(_ name: String) -> [UInt8] { Array("index-of-\(name)".utf8) }

    /// Two apps; in app1 `usr_a` holds a subscription, `usr_b` a consumable and a grant, `usr_c` is named but owns
    /// nothing; in app2 `usr_a` (the same pseudonym: pseudonyms are per app) holds another subscription.
    static func ledger() async throws -> StoreFixture {
        let fixture = try await StoreFixture.make(prefix: "readbatch")
        let recorder = EventRecorder(store: fixture.store)
        func started(_ user: String, _ id: String, product: String) -> LedgerEvent {
            .subscriptionStarted(
                SubscriptionStarted(
                    transaction: TransactionFacts(
                        appUserID: user, productID: product, transactionID: id + "-0", originalTransactionID: id,
                        subscriptionGroupID: "g", purchaseDate: day(0), expiresDate: day(30), signedDate: day(0),
                        price: Money(milliunits: 4_990, currency: "EUR"))))
        }
        let coins = TransactionFacts(
            appUserID: "usr_b", productID: "coins", transactionID: "c1", originalTransactionID: "c1", purchaseDate: day(1),
            signedDate: day(1), price: Money(milliunits: 990, currency: "USD"), quantity: 2)
        let grant = EntitlementGrant(
            grantID: "grant-1", appUserID: "usr_b", entitlementID: "pro", expiresAt: day(40), reason: "support",
            grantedBy: "op_1", grantedAt: day(2))
        try await recorder.record(
            app: "app1", [started("usr_a", "s1", product: "monthly"), .purchaseConsumable(Purchase(transaction: coins)), .grantGiven(grant)],
            at: day0)
        try await recorder.record(app: "app2", [started("usr_a", "s2", product: "yearly")], at: day0)
        for (app, pseudonym) in [("app1", "usr_a"), ("app1", "usr_b"), ("app1", "usr_c"), ("app2", "usr_a")] {
            try await fixture.store.pool.query(
                """
                INSERT INTO ledger.identities (app_id, pseudonym, blind_index, key_id)
                VALUES (\(app), \(pseudonym), \(index(app + pseudonym))::bytea, 'test-key')
                """)
        }
        try await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
        return fixture
    }

    static let keys: [StatusReadBatcher.Key] = [
        ("app1", index("app1usr_a")), ("app1", index("app1usr_b")), ("app2", index("app2usr_a")), ("app1", index("app1usr_c")),
        ("app1", index("nobody")), ("app2", index("app1usr_a")), ("app1", index("app1usr_a")), ("app3", index("app2usr_a")),
        ("app1", [])
    ]

    @Test func oneStatementAnswersEachReadAsAStatementOfItsOwn() async throws {
        let fixture = try await Self.ledger()
        defer { Task { await fixture.close() } }
        let (alone, together) = try await fixture.store.pool.withConnection { connection in
            (
                try StatusReadBatcher.read(Self.keys, together: false, on: connection).map { try $0.get() },
                try StatusReadBatcher.read(Self.keys, together: true, on: connection).map { try $0.get() }
            )
        }
        #expect(together == alone)
        // The history reaches every kind of row, and each read got its own user's.
        #expect(together[0].subscriptions.map(\.originalTransactionID) == ["s1"] && together[0].purchases.isEmpty)
        #expect(together[1].purchases.map(\.originalTransactionID) == ["c1"] && together[1].grants.map(\.grantID) == ["grant-1"])
        #expect(together[2].subscriptions.map(\.originalTransactionID) == ["s2"])
        #expect(together[6] == together[0])
        for unknown in [3, 4, 5, 7, 8] { #expect(together[unknown] == OwnedSummaries()) }
    }

    /// Reads that arrive while the reader waits for its connection go together in one statement, and each caller
    /// gets its own answer.
    @Test(.disabled(if: CitusTestCluster.isActive, "on Citus each read runs alone (StatusReadBatcher)"))
    func readsWaitingTogetherGoInOneStatement() async throws {
        let fixture = try await Self.ledger()
        defer { Task { await fixture.close() } }
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: fixture.connectionString), size: 1)
        defer { Task { await pool.shutdown() } }
        let batcher = StatusReadBatcher(pool: pool)
        let expected = try await fixture.store.pool.withConnection { connection in
            try StatusReadBatcher.read(Self.keys, together: false, on: connection).map { try $0.get() }
        }
        _ = try await batcher.summaries(app: "app1", userIndex: Self.index("app1usr_a"))  // the reader knows the database now
        // Its reader has stopped once it gives the connection back (until then it would take the reads below itself).
        try await until("the first reader stopped") { pool.usage.inUse == 0 }
        let batchesBefore = batcher.batches

        // The pool's one connection is held while the reads arrive.
        let gate = DispatchSemaphore(value: 0)
        let holder = Task { try await pool.withConnection { _ in gate.wait() } }
        try await until("the holder leased the connection") { pool.usage.inUse == 1 }
        let answers = Task {
            try await withThrowingTaskGroup(of: (Int, OwnedSummaries).self) { group in
                for (n, key) in Self.keys.enumerated() {
                    group.addTask { (n, try await batcher.summaries(app: key.app, userIndex: key.userIndex)) }
                }
                var answers = Array(repeating: OwnedSummaries(), count: Self.keys.count)
                for try await (n, owned) in group { answers[n] = owned }
                return answers
            }
        }
        try await until("every read waits") { batcher.waitingCount == Self.keys.count }
        gate.signal()
        try await holder.value
        #expect(try await answers.value == expected)
        #expect(batcher.batches - batchesBefore == 1)
    }

    /// Polls `condition` until it holds (a minute at most, for a starved machine).
    func until(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            try #require(ContinuousClock.now < deadline, "not within a minute: \(what)")
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
