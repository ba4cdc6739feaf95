/// Every fact the ledger records, typed.
///
/// Stored type names (`encoded().type`) and current schema versions:
///
/// | case | type | version |
/// |---|---|---|
/// | `purchaseConsumable` | `purchase.consumable` | 1 |
/// | `purchaseNonConsumable` | `purchase.non_consumable` | 1 |
/// | `purchaseNonRenewing` | `purchase.non_renewing` | 1 |
/// | `externalPurchase` | `purchase.external` | 1 |
/// | `consumed` | `purchase.consumed` | 1 |
/// | `subscriptionStarted` | `subscription.started` | 1 |
/// | `subscriptionRenewed` | `subscription.renewed` | 1 |
/// | `billingFailed` | `subscription.billing_failed` | 1 |
/// | `gracePeriodExpired` | `subscription.grace_period_expired` | 1 |
/// | `billingRecovered` | `subscription.billing_recovered` | 1 |
/// | `subscriptionExpired` | `subscription.expired` | 1 |
/// | `autoRenewChanged` | `subscription.auto_renew_changed` | 1 |
/// | `renewalPreferenceChanged` | `subscription.renewal_preference_changed` | 1 |
/// | `priceIncrease` | `subscription.price_increase` | 1 |
/// | `renewalExtended` | `subscription.renewal_extended` | 1 |
/// | `refunded` | `transaction.refunded` | 1 |
/// | `refundDeclined` | `transaction.refund_declined` | 1 |
/// | `refundReversed` | `transaction.refund_reversed` | 1 |
/// | `revoked` | `transaction.revoked` | 1 |
/// | `consumptionRequested` | `transaction.consumption_requested` | 1 |
/// | `consumptionInformationSent` | `transaction.consumption_information_sent` | 2 (1 is upcast) |
/// | `consumptionAnswerWithheld` | `transaction.consumption_answer_withheld` | 1 |
/// | `consumptionConsentRecorded` | `user.consumption_consent_recorded` | 1 |
/// | `grantGiven` | `user.grant_given` | 1 |
/// | `grantRevoked` | `user.grant_revoked` | 1 |
/// | `linked` | `identity.linked` | 1 |
/// | `transferred` | `identity.transferred` | 2 (1 is upcast) |
/// | `appStoreNotification` | `appstore.notification` | 1 |
///
/// Offers (introductory, promotional, offer code, win-back) are not events of their own: they are
/// `TransactionFacts.offer` of the purchase or renewal they priced. A type name, once stored, never changes
/// meaning; a changed payload shape gets a new schema version and an upcaster in `EventCodec`.
public enum LedgerEvent: Sendable, Hashable {
    case purchaseConsumable(Purchase)
    case purchaseNonConsumable(Purchase)
    case purchaseNonRenewing(Purchase)
    case externalPurchase(ExternalPurchase)
    case consumed(Consumption)
    case subscriptionStarted(SubscriptionStarted)
    case subscriptionRenewed(Renewal)
    case billingFailed(BillingFailure)
    case gracePeriodExpired(GracePeriodExpired)
    case billingRecovered(Renewal)
    case subscriptionExpired(Expiry)
    case autoRenewChanged(AutoRenewChange)
    case renewalPreferenceChanged(RenewalPreferenceChange)
    case priceIncrease(PriceIncrease)
    case renewalExtended(RenewalExtension)
    case refunded(Refund)
    case refundDeclined(RefundDeclined)
    case refundReversed(RefundReversed)
    case revoked(Revocation)
    case consumptionRequested(ConsumptionRequest)
    case consumptionInformationSent(ConsumptionInformationSent)
    case consumptionAnswerWithheld(ConsumptionAnswerWithheld)
    /// About a user, not a purchase: in the user's stream (`LedgerStreams.user`).
    case consumptionConsentRecorded(ConsumptionConsent)
    case grantGiven(EntitlementGrant)
    case grantRevoked(GrantRevocation)
    case linked(TransactionLink)
    case transferred(Transfer)
    case appStoreNotification(AppStoreNotification)
}

extension LedgerEvent {
    /// The original transaction ids this event is about (the key of per-transaction projections).
    public var originalTransactionIDs: [String] {
        switch self {
        case .purchaseConsumable(let p), .purchaseNonConsumable(let p), .purchaseNonRenewing(let p):
            [p.transaction.originalTransactionID]
        case .externalPurchase(let p): [p.paymentID]
        case .consumed(let c): [c.originalTransactionID]
        case .subscriptionStarted(let s): [s.transaction.originalTransactionID]
        case .subscriptionRenewed(let r), .billingRecovered(let r): [r.transaction.originalTransactionID]
        case .billingFailed(let e): [e.subscription.originalTransactionID]
        case .gracePeriodExpired(let e): [e.subscription.originalTransactionID]
        case .subscriptionExpired(let e): [e.subscription.originalTransactionID]
        case .autoRenewChanged(let e): [e.subscription.originalTransactionID]
        case .renewalPreferenceChanged(let e): [e.subscription.originalTransactionID]
        case .priceIncrease(let e): [e.subscription.originalTransactionID]
        case .renewalExtended(let e): [e.subscription.originalTransactionID]
        case .refunded(let e): [e.subscription.originalTransactionID]
        case .refundDeclined(let e): [e.subscription.originalTransactionID]
        case .refundReversed(let e): [e.subscription.originalTransactionID]
        case .revoked(let e): [e.subscription.originalTransactionID]
        case .consumptionRequested(let e): [e.subscription.originalTransactionID]
        case .consumptionInformationSent(let e): [e.originalTransactionID]
        case .consumptionAnswerWithheld(let e): [e.originalTransactionID]
        case .consumptionConsentRecorded, .grantGiven, .grantRevoked: []
        case .linked(let l): l.originalTransactionIDs
        case .transferred(let t): t.originalTransactionIDs
        case .appStoreNotification: []
        }
    }

    /// The app user named by the event itself, if any (notifications usually name none).
    public var appUserID: String? {
        switch self {
        case .purchaseConsumable(let p), .purchaseNonConsumable(let p), .purchaseNonRenewing(let p):
            p.transaction.appUserID
        case .externalPurchase(let p): p.appUserID
        case .consumed(let c): c.appUserID
        case .subscriptionStarted(let s): s.transaction.appUserID
        case .subscriptionRenewed(let r), .billingRecovered(let r): r.transaction.appUserID
        case .billingFailed(let e): e.subscription.appUserID
        case .gracePeriodExpired(let e): e.subscription.appUserID
        case .subscriptionExpired(let e): e.subscription.appUserID
        case .autoRenewChanged(let e): e.subscription.appUserID
        case .renewalPreferenceChanged(let e): e.subscription.appUserID
        case .priceIncrease(let e): e.subscription.appUserID
        case .renewalExtended(let e): e.subscription.appUserID
        case .refunded(let e): e.subscription.appUserID
        case .refundDeclined(let e): e.subscription.appUserID
        case .refundReversed(let e): e.subscription.appUserID
        case .revoked(let e): e.subscription.appUserID
        case .consumptionRequested(let e): e.subscription.appUserID
        case .consumptionInformationSent, .consumptionAnswerWithheld: nil
        case .consumptionConsentRecorded(let c): c.appUserID
        case .grantGiven(let g): g.appUserID
        case .grantRevoked(let r): r.appUserID
        case .linked(let l): l.appUserID
        case .transferred(let t): t.toUserID
        case .appStoreNotification: nil
        }
    }
}
