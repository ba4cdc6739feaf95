import AppStoreVerification
import LedgerDomain
import UTCTime

/// A verified legacy app receipt uploaded for the app user `appUserID` → ledger events.
///
/// One purchase event per in-app record (keyed `tx:<transaction id>`, so a transaction already known from a
/// notification or an SDK upload is recorded once), a refund for each record with a cancellation date, and one
/// `identity.linked` (source `upload`) per original transaction id. The environment is the receipt type's.
///
/// Receipts do not say a product's type, so it comes from the app's catalog (`productType`). For a product the
/// catalog does not know: a record with an expires date is an auto-renewable subscription (only those carry one
/// in receipts), anything else non-consumable — the type that grants the most conservative thing, a permanent
/// unlock that a refund still withdraws; a consumable would otherwise be offered for consumption twice.
///
/// What receipts lack, the facts lack too: price, currency, storefront, subscription group, offer identifier and
/// payment mode (an introductory period is still recorded as an introductory offer), `appAccountToken`, family
/// sharing. A receipt cannot tell a resubscribe from a renewal: a record that is not its own original renews.
public struct ReceiptIngest: Sendable {
    /// The app's catalog: product id → product type; nil when unknown.
    public var productType: @Sendable (String) -> LedgerDomain.ProductType?

    public init(productType: @escaping @Sendable (String) -> LedgerDomain.ProductType? = { _ in nil }) {
        self.productType = productType
    }

    public func events(receipt: AppReceipt, appUserID: String) throws(IngestError) -> [LedgerEvent] {
        guard let environment = receipt.environment else { throw .missingField("receipt.receiptType") }
        var events: [LedgerEvent] = []
        var firstPurchase: [String: Instant] = [:]
        var order: [String] = []
        for (index, record) in receipt.inAppPurchases.enumerated() {
            let facts = try Self.facts(
                record, appUserID: appUserID, environment: StoreEnvironment(rawValue: environment.rawValue),
                path: "receipt.inAppPurchases[\(index)]")
            let type = productType(facts.productID) ?? (facts.expiresDate == nil ? .nonConsumable : .autoRenewable)
            events.append(PurchaseEvents.event(facts, type: type))
            if let cancelled = record.cancellationDateMs.map(Instant.init(epochMilliseconds:)) {
                events.append(
                    .refunded(
                        Refund(
                            subscription: PurchaseEvents.ref(facts, at: cancelled), transactionID: facts.transactionID,
                            refundDate: cancelled)))
            }
            let since = IdentityLinks.since(facts)
            if let known = firstPurchase[facts.originalTransactionID] {
                firstPurchase[facts.originalTransactionID] = min(known, since)
            } else {
                firstPurchase[facts.originalTransactionID] = since
                order.append(facts.originalTransactionID)
            }
        }
        for otid in order {
            if let since = firstPurchase[otid] {
                events.append(IdentityLinks.link(appUserID, originalTransactionID: otid, since: since, source: .upload))
            }
        }
        return events
    }

    /// One in-app record as facts; `signedDate` is the purchase date, as on every path (see `About.swift`).
    static func facts(
        _ r: InAppPurchaseReceipt, appUserID: String, environment: StoreEnvironment, path: String
    ) throws(IngestError) -> TransactionFacts {
        guard let transactionID = r.transactionId else { throw .missingField("\(path).transactionId") }
        guard let productID = r.productId else { throw .missingField("\(path).productId") }
        guard let purchased = r.purchaseDateMs else { throw .missingField("\(path).purchaseDate") }
        let purchaseDate = Instant(epochMilliseconds: purchased)
        return TransactionFacts(
            appUserID: appUserID, productID: productID, transactionID: transactionID,
            originalTransactionID: r.originalTransactionId ?? transactionID, environment: environment,
            purchaseDate: purchaseDate,
            originalPurchaseDate: r.originalPurchaseDateMs.map(Instant.init(epochMilliseconds:)),
            expiresDate: r.expiresDateMs.map(Instant.init(epochMilliseconds:)),
            signedDate: purchaseDate,
            offer: r.isInIntroOfferPeriod == true ? Offer(type: .introductory) : nil,
            quantity: Int(r.quantity ?? 1),
            // A receipt may write 0 where StoreKit 2 omits the field: both mean "none".
            webOrderLineItemID: r.webOrderLineItemId.flatMap { $0 == 0 ? nil : String($0) })
    }
}
