import Foundation
import Testing

@testable import SubscriptionLedgerSDKCore

/// The status stream hands an app a state only when it differs from the last one, so an app (or the demo) that shows
/// each state never shows the same one twice: not for a re-read, nor for the live stream's snapshot on connect.
@Suite struct StatusStreamTests {
    struct NoStore: PurchaseStore {
        func appReceipt() async -> Data? { nil }
        func currentEntitlements() async -> [StoreTransaction] { [] }
        func allTransactions() async -> [StoreTransaction] { [] }
        func purchase(productID: String, appAccountToken: UUID?) async throws -> StorePurchaseOutcome { .userCancelled }
        func transactionUpdates() -> AsyncStream<StoreTransaction> { AsyncStream { $0.finish() } }
        func sync() async throws {}
    }

    @Test func aStateIsDeliveredOnlyWhenItDiffersFromTheLastOne() async throws {
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("status-stream-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: storage) }
        let engine = LedgerEngine(
            configuration: LedgerConfiguration(
                baseURL: URL(string: "http://127.0.0.1:9")!, apiKey: "pk_test",
                storageDirectory: storage), store: NoStore())
        let updates = await engine.statusUpdates()
        let inactive = LedgerStatus(userID: "u1", products: [ProductStatus(id: "monthly", status: "inactive")], entitlements: [])
        var cached = inactive
        cached.isCached = true
        var reread = inactive
        reread.receivedAt = inactive.receivedAt.addingTimeInterval(5)
        var snapshot = inactive
        snapshot.cursor = "c-1"
        let active = LedgerStatus(
            userID: "u1", products: [ProductStatus(id: "monthly", status: "active")], entitlements: [],
            cursor: "c-2")

        await engine.publish(cached)  // the disk cache at start
        await engine.publish(inactive)  // the ledger confirms it: delivered, no longer cached
        await engine.publish(reread)  // the same facts read again
        await engine.publish(snapshot)  // the live stream's first state, the same facts
        await engine.publish(active)  // a change
        await engine.publish(active)
        await engine.shutdown()

        var delivered: [LedgerStatus] = []
        for await status in updates { delivered.append(status) }
        #expect(delivered.map(\.isCached) == [true, false, false])
        #expect(delivered.map { $0.products.map(\.status) } == [["inactive"], ["inactive"], ["active"]])
        // The cursor of a state not delivered is still kept: a reconnect resumes from it.
        #expect(await engine.status?.cursor == "c-2")
    }
}
