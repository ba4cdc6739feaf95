import Foundation
import Testing

@testable import SubscriptionLedgerSDKCore

/// The customer updates hand an app a snapshot only when it differs from the last one, so an app (or the demo) that
/// shows each one never shows the same one twice: not for a re-read, nor for the live stream's snapshot on connect;
/// but an offline snapshot the ledger then confirms is news (its source changed).
@Suite struct StatusStreamTests {
    @Test func aSnapshotIsDeliveredOnlyWhenItDiffersFromTheLastOne() async throws {
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("status-stream-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: storage) }
        let files = LedgerFiles(
            configuration: LedgerConfiguration(baseURL: URL(string: "http://127.0.0.1:9")!, apiKey: "pk_test", storageDirectory: storage))
        var cache = CustomerCache(files: files, maximumAge: .seconds(60))
        let updates = cache.listen { _ in }
        let issued = Date(timeIntervalSince1970: 1_800_000_000)
        let inactive = CustomerInfo(userID: "u1", productsStatus: [ProductStatus(id: "monthly", status: .inactive)], issuedAt: issued)
        var offline = inactive
        offline.source = .offline
        var reread = inactive
        reread.issuedAt = issued.addingTimeInterval(5)
        var active = inactive
        active.issuedAt = issued.addingTimeInterval(10)
        active.productsStatus = [ProductStatus(id: "monthly", status: .active)]
        active.entitlements = [EntitlementInfo(id: "pro", isActive: true, expiresAt: nil, productID: "monthly")]

        // The kept snapshot at start; the ledger confirms it (delivered: no longer offline); the same facts read again.
        var published = [cache.publish(offline), cache.publish(inactive), cache.publish(reread)]
        #expect(cache.info?.issuedAt == issued.addingTimeInterval(5), "the newest snapshot is kept, delivered or not")
        published += [
            cache.publish(active),  // a change
            cache.publish(active)
        ]
        #expect(published == [true, true, false, true, false])
        cache.finish()

        var delivered: [CustomerInfo] = []
        for await info in updates { delivered.append(info) }
        #expect(delivered.map(\.source) == [.offline, .ledger, .ledger])
        #expect(delivered.map { $0.productsStatus.map(\.status) } == [[.inactive], [.inactive], [.active]])
        #expect(cache.info?.issuedAt == issued.addingTimeInterval(10))
    }
}
