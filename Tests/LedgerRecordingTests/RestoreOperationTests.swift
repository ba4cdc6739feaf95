import LedgerDomain
import LedgerRecording
import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import Testing
import UTCTime

@Suite struct RestoreOperationTests {
    static let day0 = Instant(microsecondsSinceEpoch: 1_767_225_600_000_000)
    static func day(_ n: Int64) -> Instant { Instant(microsecondsSinceEpoch: day0.microsecondsSinceEpoch + n * 86_400_000_000) }

    /// u1 owns subscription o1 (active until day 30) and consumable c1; u3's purchase x1 has no owner yet.
    static func setUp() async throws -> StoreFixture {
        let fixture = try await StoreFixture.make()
        let subscription = TransactionFacts(
            appUserID: "u1", productID: "monthly", transactionID: "o1", originalTransactionID: "o1",
            subscriptionGroupID: "g1", purchaseDate: day(0), expiresDate: day(30), signedDate: day(0))
        let coins = TransactionFacts(
            appUserID: "u1", productID: "coins", transactionID: "c1", originalTransactionID: "c1",
            purchaseDate: day(1), signedDate: day(1))
        let unowned = TransactionFacts(productID: "coins", transactionID: "x1", originalTransactionID: "x1", purchaseDate: day(1), signedDate: day(1))
        for (event, id) in [
            (LedgerEvent.subscriptionStarted(SubscriptionStarted(transaction: subscription, isResubscribe: false)), "o1"),
            (.purchaseConsumable(Purchase(transaction: coins)), "c1"),
            (.purchaseConsumable(Purchase(transaction: unowned)), "x1")
        ] {
            try await PurchaseOperationsTests.append(event, otid: id, store: fixture.store)
        }
        try await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
        return fixture
    }

    static func owner(_ id: String, _ fixture: StoreFixture) async throws -> String? {
        try await PurchaseOperations(store: fixture.store).record(app: "app", originalTransactionID: id).0.ownerUserID
    }

    @Test func transferMovesEverythingToTheRestoringUser() async throws {
        let fixture = try await Self.setUp()
        let positions = try await RestoreOperation(store: fixture.store)
            .restore(app: "app", originalTransactionIDs: ["c1", "o1", "x1"], to: "u2", policy: .transfer, at: Self.day(2))
        #expect(positions.count == 3)  // one event per purchase, each in its own stream
        #expect(try await Self.owner("c1", fixture) == "u2")
        #expect(try await Self.owner("x1", fixture) == "u2")
        // Restoring again changes nothing.
        #expect(
            try await RestoreOperation(store: fixture.store)
                .restore(app: "app", originalTransactionIDs: ["c1", "o1", "x1"], to: "u2", policy: .transfer, at: Self.day(3)).isEmpty)
        await fixture.close()
    }

    @Test func keepAndRefuseChangesNothing() async throws {
        let fixture = try await Self.setUp()
        await #expect {
            try await RestoreOperation(store: fixture.store)
                .restore(app: "app", originalTransactionIDs: ["c1", "x1"], to: "u2", policy: .keepAndRefuse, at: Self.day(2))
        } throws: { error in
            (error as? RestoreRefusal)?.conflicts.map(\.originalTransactionID) == ["c1"]
        }
        #expect(try await Self.owner("c1", fixture) == "u1")
        #expect(try await Self.owner("x1", fixture) == nil)  // all or nothing: the unowned one was not linked either
        await fixture.close()
    }

    @Test func transferIfNoActiveRefusesWhileTheOldOwnerHasAnActiveSubscription() async throws {
        let fixture = try await Self.setUp()
        let operation = RestoreOperation(store: fixture.store)
        // Day 2: o1 is active for u1, so c1 cannot move.
        await #expect(throws: RestoreRefusal.self) {
            try await operation.restore(app: "app", originalTransactionIDs: ["c1"], to: "u2", policy: .transferIfNoActive, at: Self.day(2))
        }
        // Day 40: o1 has lapsed; the transfer goes through.
        let positions = try await operation.restore(
            app: "app", originalTransactionIDs: ["c1"], to: "u2", policy: .transferIfNoActive,
            at: Self.day(40))
        #expect(positions.count == 1)
        #expect(try await Self.owner("c1", fixture) == "u2")
        await fixture.close()
    }
}
