import LedgerDomain
import LedgerRecording
import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import Testing
import UTCTime

@Suite struct PurchaseOperationsTests {
    static let now = Instant(microsecondsSinceEpoch: 1_767_225_600_000_000)

    /// Records a purchase of `product` (a consumable unless stated) owned by `user`, in its own stream.
    static func recordPurchase(_ otid: String, user: String, consumable: Bool = true, store: EventStore) async throws {
        let facts = TransactionFacts(
            appUserID: user, productID: consumable ? "coins" : "premium", transactionID: otid,
            originalTransactionID: otid, purchaseDate: now, signedDate: now, developerPayload: "level 3")
        try await append(
            consumable ? .purchaseConsumable(Purchase(transaction: facts)) : .purchaseNonConsumable(Purchase(transaction: facts)),
            otid: otid, store: store)
    }

    static func append(_ event: LedgerEvent, otid: String, store: EventStore) async throws {
        let encoded = event.encoded()
        _ = try await store.append(
            app: "app", stream: LedgerStreams.purchase(originalTransactionID: otid),
            events: [
                NewEvent(
                    type: encoded.type, schemaVersion: encoded.schemaVersion, payload: encoded.payload,
                    idempotencyKey: event.idempotencyKey, occurredAt: LedgerClock.system.now())
            ])
    }

    @Test func consumeOnceThenEveryRefusalSaysWhy() async throws {
        let fixture = try await StoreFixture.make()
        let operations = PurchaseOperations(store: fixture.store)
        try await Self.recordPurchase("c1", user: "u1", store: fixture.store)
        try await Self.recordPurchase("n1", user: "u1", consumable: false, store: fixture.store)
        try await Self.recordPurchase("r1", user: "u1", store: fixture.store)
        let ref = SubscriptionRef(appUserID: "u1", productID: "coins", originalTransactionID: "r1", signedDate: Self.now)
        try await Self.append(
            .refunded(Refund(subscription: ref, transactionID: "r1", refundDate: Self.now, reason: "0")),
            otid: "r1", store: fixture.store)

        try await operations.consume(app: "app", originalTransactionID: "c1", by: "u1", at: Self.now)
        #expect(try await operations.record(app: "app", originalTransactionID: "c1").0.consumedAt == Self.now)

        await #expect(throws: ConsumeError.alreadyConsumed(originalTransactionID: "c1", consumedAt: Self.now)) {
            try await operations.consume(app: "app", originalTransactionID: "c1", by: "u1", at: Self.now)
        }
        await #expect(throws: ConsumeError.belongsToAnotherUser(originalTransactionID: "c1")) {
            try await operations.consume(app: "app", originalTransactionID: "c1", by: "intruder", at: Self.now)
        }
        await #expect(throws: ConsumeError.notConsumable(originalTransactionID: "n1", productType: .nonConsumable)) {
            try await operations.consume(app: "app", originalTransactionID: "n1", by: "u1", at: Self.now)
        }
        await #expect(throws: ConsumeError.refunded(originalTransactionID: "r1")) {
            try await operations.consume(app: "app", originalTransactionID: "r1", by: "u1", at: Self.now)
        }
        await #expect(throws: ConsumeError.unknownPurchase(originalTransactionID: "nope")) {
            try await operations.consume(app: "app", originalTransactionID: "nope", by: "u1", at: Self.now)
        }
        // Another app's purchase with the same id is unknown here.
        await #expect(throws: ConsumeError.self) {
            try await PurchaseOperations(store: fixture.store).consume(app: "other-app", originalTransactionID: "c1", by: "u1", at: Self.now)
        }
        await fixture.close()
    }

    @Test func eightConcurrentConsumesSucceedOnce() async throws {
        let fixture = try await StoreFixture.make()
        try await Self.recordPurchase("c1", user: "u1", store: fixture.store)
        let operations = PurchaseOperations(store: fixture.store)
        let successes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { (try? await operations.consume(app: "app", originalTransactionID: "c1", by: "u1", at: Self.now)) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(successes == 1)
        let consumed = try await fixture.superuser.query("SELECT count(*) FROM ledger.events WHERE event_type = 'purchase.consumed'")
        #expect(try consumed.first?.decode(Int64.self, at: 0) == 1)
        await fixture.close()
    }
}
