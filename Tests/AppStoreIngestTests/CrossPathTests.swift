import AppStoreIngest
import AppStoreSamples
import AppStoreVerification
import LedgerDomain
import Testing
import UTCTime

/// The same purchase arriving by notification, SDK upload and receipt upload is one fact.
@Suite("One purchase, three paths")
struct CrossPathTests {
    static let user = "7e3fb20b-4cdb-47cc-936d-99d65f608138"  // the app passes its user id as appAccountToken

    func purchaseAndLink(_ events: [LedgerEvent]) -> (purchase: LedgerEvent?, link: LedgerEvent?) {
        (events.first { $0.encoded().type == "subscription.started" }, events.first { if case .linked = $0 { true } else { false } })
    }

    @Test func sameKeysAndFacts() throws {
        // Each copy is signed at a different time, and Xcode writes fractional milliseconds.
        let inNotification = try transaction(
            AppStorePayloads.transaction(
                id: "2000000001", original: "2000000001", purchase: "\(jan1 + 123).7297", token: Self.user, signed: jan1 + 1000))
        let fromSDK = try transaction(
            AppStorePayloads.transaction(
                id: "2000000001", original: "2000000001", purchase: "\(jan1 + 123).7297", token: Self.user, signed: jan1 + 9 * day))
        var record = receiptRecord(id: "2000000001", original: "2000000001", webOrderLineItemID: 20_000_002_000_000_001)
        record.purchaseDateMs = jan1 + 123

        let viaNotification = try NotificationIngest(appAccountTokens: .tokenIsAppUserID).events(
            for: notification(notificationJSON(type: "SUBSCRIBED", subtype: "INITIAL_BUY"), transaction: inNotification))
        let viaSDK = try TransactionIngest(appAccountTokens: .tokenIsAppUserID).events(transaction: fromSDK, appUserID: Self.user)
        let viaReceipt = try ReceiptIngest().events(receipt: receipt([record]), appUserID: Self.user)

        let n = purchaseAndLink(viaNotification), s = purchaseAndLink(viaSDK), r = purchaseAndLink(viaReceipt)
        #expect(n.purchase?.idempotencyKey == "tx:2000000001")
        #expect(s.purchase?.idempotencyKey == "tx:2000000001")
        #expect(r.purchase?.idempotencyKey == "tx:2000000001")
        // The link from the token (notification) and from the uploads is one fact under one key.
        #expect(n.link?.idempotencyKey == s.link?.idempotencyKey)
        #expect(s.link?.idempotencyKey == r.link?.idempotencyKey)
        #expect(n.link?.idempotencyKey == "link:\(Self.user):2000000001:\(instant(jan1 + 123).microsecondsSinceEpoch)")

        guard case .subscriptionStarted(let fromN)? = n.purchase, case .subscriptionStarted(let fromS)? = s.purchase,
            case .subscriptionStarted(let fromR)? = r.purchase
        else { Issue.record("no purchases"); return }
        #expect(fromN == fromS)  // identical payloads, whichever copy is recorded
        // A receipt knows less (no price, group, storefront, token…): on the fields it has, the facts are identical.
        var shared = fromS.transaction
        shared.subscriptionGroupID = nil
        shared.price = nil
        shared.storefront = nil
        shared.developerPayload = nil
        shared.appTransactionID = nil
        shared.environment = .sandbox
        #expect(fromR.transaction == shared)
        #expect(n.purchase?.encoded().payload == s.purchase?.encoded().payload)

        let appends = StreamNaming.appends(for: viaNotification + viaSDK + viaReceipt)
        #expect(Set(appends.map(\.stream)) == ["otx:2000000001"])
        let linkKey = try #require(n.link?.idempotencyKey)
        #expect(appends.map(\.idempotencyKey) == ["notification:0b8b0b3c-5f2e-4d7a-9d1e-000000000001", "tx:2000000001", linkKey])
    }
}
