import AppStoreIngest
import AppStoreVerification
import LedgerDomain
import Testing

@Suite("Legacy receipt upload → events")
struct ReceiptIngestTests {
    @Test func recordsByCatalogAndFallback() throws {
        let catalog: @Sendable (String) -> LedgerDomain.ProductType? = { $0 == "coins" ? .consumable : nil }
        let r = receipt([
            receiptRecord(id: "1000000001", original: "1000000001", webOrderLineItemID: 2_000_000_001, intro: true),
            receiptRecord(
                id: "1000000002", original: "1000000001", purchase: jan1 + 31 * day, expires: jan1 + 62 * day,
                webOrderLineItemID: 2_000_000_002),
            receiptRecord(
                id: "1000000003", original: "1000000003", product: "coins", purchase: jan1 + 5 * day, originalPurchase: jan1 + 5 * day,
                expires: nil, cancellation: jan1 + 7 * day),
            receiptRecord(
                id: "1000000004", original: "1000000004", product: "pro-unlock", purchase: jan1 + 6 * day, originalPurchase: nil,
                expires: nil)
        ])
        let events = try ReceiptIngest(productType: catalog).events(receipt: r, appUserID: "u1")
        #expect(
            events.map { $0.encoded().type } == [
                "subscription.started", "subscription.renewed", "purchase.consumable", "transaction.refunded",
                "purchase.non_consumable", "identity.linked", "identity.linked", "identity.linked"
            ])
        guard case .subscriptionStarted(let s) = events[0] else { Issue.record("\(events)"); return }
        #expect(
            s.transaction
                == TransactionFacts(
                    appUserID: "u1", productID: "monthly", transactionID: "1000000001", originalTransactionID: "1000000001",
                    environment: .sandbox, purchaseDate: instant(jan1 + 123), originalPurchaseDate: instant(jan1 + 123),
                    expiresDate: instant(jan1 + 31 * day), signedDate: instant(jan1 + 123), offer: Offer(type: .introductory),
                    webOrderLineItemID: "2000000001"))
        #expect(
            events[3]
                == .refunded(
                    Refund(
                        subscription: SubscriptionRef(
                            appUserID: "u1", productID: "coins", originalTransactionID: "1000000003",
                            environment: .sandbox, signedDate: instant(jan1 + 7 * day)),
                        transactionID: "1000000003", refundDate: instant(jan1 + 7 * day))))
        #expect(
            Array(events.suffix(3)) == [
                .linked(TransactionLink(appUserID: "u1", originalTransactionIDs: ["1000000001"], linkedAt: instant(jan1 + 123), source: .upload)),
                .linked(TransactionLink(appUserID: "u1", originalTransactionIDs: ["1000000003"], linkedAt: instant(jan1 + 5 * day), source: .upload)),
                .linked(TransactionLink(appUserID: "u1", originalTransactionIDs: ["1000000004"], linkedAt: instant(jan1 + 6 * day), source: .upload))
            ])
        expectRoundTrips(events)
    }

    @Test func unknownProductWithExpiryIsAutoRenewable() throws {
        let events = try ReceiptIngest().events(receipt: receipt([receiptRecord(id: "7", original: "7")]), appUserID: "u1")
        #expect(events.first?.encoded().type == "subscription.started")
    }

    @Test(arguments: [
        ("Production", StoreEnvironment.production), ("ProductionSandbox", .sandbox), ("Xcode", .xcode),
        (
            "LocalTesting",
            .localTesting
        )
    ])
    func environmentFromReceiptType(_ type: String, _ environment: StoreEnvironment) throws {
        let events = try ReceiptIngest().events(receipt: receipt([receiptRecord(id: "7", original: "7")], type: type), appUserID: "u1")
        guard case .subscriptionStarted(let s)? = events.first else { Issue.record("\(events)"); return }
        #expect(s.transaction.environment == environment)
    }

    @Test func unusableReceiptsAreRefused() {
        #expect(throws: IngestError.missingField("receipt.receiptType")) {
            try ReceiptIngest().events(receipt: receipt([], type: "SomethingElse"), appUserID: "u1")
        }
        var record = receiptRecord(id: "7", original: "7")
        record.purchaseDateMs = nil
        #expect(throws: IngestError.missingField("receipt.inAppPurchases[0].purchaseDate")) {
            try ReceiptIngest().events(receipt: receipt([record]), appUserID: "u1")
        }
    }

    @Test func emptyReceiptYieldsNothing() throws {
        #expect(try ReceiptIngest().events(receipt: receipt([]), appUserID: "u1").isEmpty)
    }
}
