import LedgerDomain
import UTCTime

/// The purchase event of one transaction by product type, shared by the SDK-upload and receipt paths.
enum PurchaseEvents {
    /// An auto-renewable transaction starts a subscription when it is its own original, or when it is a new
    /// customer purchase on an existing original transaction id (a resubscribe); otherwise it renews it.
    static func event(
        _ facts: TransactionFacts, type: ProductType, isCustomerPurchase: Bool = false
    ) -> LedgerEvent {
        switch type {
        case .consumable: return .purchaseConsumable(Purchase(transaction: facts))
        case .nonConsumable: return .purchaseNonConsumable(Purchase(transaction: facts))
        case .nonRenewing: return .purchaseNonRenewing(Purchase(transaction: facts))
        case .autoRenewable:
            if facts.transactionID == facts.originalTransactionID {
                return .subscriptionStarted(SubscriptionStarted(transaction: facts))
            }
            if isCustomerPurchase {
                return .subscriptionStarted(SubscriptionStarted(transaction: facts, isResubscribe: true))
            }
            return .subscriptionRenewed(Renewal(transaction: facts))
        }
    }

    /// The subscription a refund or revocation names, stamped with the revocation date.
    ///
    /// Why the revocation date and not the signing date of this copy: repeated uploads of one refunded
    /// transaction (each signed anew) and the receipt's cancellation date then share one key, so the refund is
    /// recorded once per path. A `REFUND` notification keys by its own signing date, so it may add a second,
    /// identical-in-effect refund event; a later `REFUND_REVERSED` still wins because it is signed later.
    static func ref(_ facts: TransactionFacts, at instant: Instant) -> SubscriptionRef {
        SubscriptionRef(
            appUserID: facts.appUserID, productID: facts.productID, originalTransactionID: facts.originalTransactionID,
            subscriptionGroupID: facts.subscriptionGroupID, environment: facts.environment, signedDate: instant)
    }
}
