import UTCTime

/// Auto-renew was turned on or off (`DID_CHANGE_RENEWAL_STATUS` AUTO_RENEW_ENABLED / AUTO_RENEW_DISABLED).
public struct AutoRenewChange: Sendable, Hashable, Codable {
    public var subscription: SubscriptionRef
    public var enabled: Bool
    public init(subscription: SubscriptionRef, enabled: Bool) {
        self.subscription = subscription
        self.enabled = enabled
    }
}

/// What kind of plan change the user asked for.
public enum RenewalChangeKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Higher level of service: takes effect at once, with a new transaction (`UPGRADE`).
    case upgrade
    /// Lower level of service: takes effect at the next renewal (`DOWNGRADE`).
    case downgrade
    /// Same level, other product: at the next renewal unless the duration matches.
    case crossgrade
    /// A pending downgrade / crossgrade was withdrawn (`DID_CHANGE_RENEWAL_PREF` without subtype).
    case downgradeCancelled
}

/// The user changed the product their subscription renews into (`DID_CHANGE_RENEWAL_PREF`).
public struct RenewalPreferenceChange: Sendable, Hashable, Codable {
    /// The subscription; `productID` is the product in effect now.
    public var subscription: SubscriptionRef
    public var kind: RenewalChangeKind
    /// Renewal info `autoRenewProductId`: the product of the next period.
    public var autoRenewProductID: String
    /// For an immediate upgrade (or a crossgrade of equal duration): the new transaction, effective now.
    public var transaction: TransactionFacts?
    public init(
        subscription: SubscriptionRef, kind: RenewalChangeKind, autoRenewProductID: String,
        transaction: TransactionFacts? = nil
    ) {
        self.subscription = subscription
        self.kind = kind
        self.autoRenewProductID = autoRenewProductID
        self.transaction = transaction
    }
}

/// The consent state of a price increase.
public enum PriceIncreaseConsent: String, Sendable, Hashable, Codable, CaseIterable {
    /// `PRICE_INCREASE` / `PENDING`: the user has not answered yet.
    case pending
    /// `PRICE_INCREASE` / `ACCEPTED` (or no consent needed).
    case accepted
}

/// A price increase was announced or accepted (`PRICE_INCREASE`). A decline shows as
/// `Expiry(reason: .priceIncreaseDeclined)`.
public struct PriceIncrease: Sendable, Hashable, Codable {
    public var subscription: SubscriptionRef
    public var consent: PriceIncreaseConsent
    public init(subscription: SubscriptionRef, consent: PriceIncreaseConsent) {
        self.subscription = subscription
        self.consent = consent
    }
}

/// Apple extended the renewal date (`RENEWAL_EXTENDED`, or a `RENEWAL_EXTENSION` / `SUMMARY` entry).
public struct RenewalExtension: Sendable, Hashable, Codable {
    public var subscription: SubscriptionRef
    /// The new expiry date of the current period.
    public var newExpiresDate: Instant
    /// Apple's `extendByDays`, when known.
    public var extendedByDays: Int?
    public init(subscription: SubscriptionRef, newExpiresDate: Instant, extendedByDays: Int? = nil) {
        self.subscription = subscription
        self.newExpiresDate = newExpiresDate
        self.extendedByDays = extendedByDays
    }
}
