import UTCTime

/// What the per-user views read of one subscription: the derived values of `SubscriptionStatus`, without the
/// registers and stamps that folding needs.
///
/// The `ledger.subscriptions` read model stores exactly these values in typed columns, so a status read is one query
/// and no state is decoded or folded to answer it. Every per-user view (`UserView`, products status,
/// entitlements, intro-offer eligibility) is computed from summaries only, so the answer from the table and the
/// answer from a fold of the log cannot differ.
public struct SubscriptionSummary: Sendable, Hashable {
    public var originalTransactionID: String
    public var ownerUserID: String?
    public var productID: String?
    public var subscriptionGroupID: String?
    /// As Apple last reported it (`SubscriptionStatus.state`); nil while only identity facts are known.
    public var state: SubscriptionState?
    /// The end of the paid period (`SubscriptionStatus.expiresAt`).
    public var expiresAt: Instant?
    /// The grace period's end, while `state` is `.inGracePeriod`.
    public var graceExpiresAt: Instant?
    public var autoRenew: Bool?
    /// The product of the next period when a downgrade or crossgrade is pending.
    public var nextProductID: String?
    public var priceIncrease: PriceIncreaseConsent?
    /// The offer of the latest transaction.
    public var offer: Offer?
    public var environment: StoreEnvironment?
    public var familyShared: Bool
    public var latestTransactionID: String?
    public var appTransactionID: String?
    public var billingPlanType: String?
    public var commitment: Commitment?
    /// Every product this subscription was ever on, sorted.
    public var productsEverPurchased: [String]
    public var activatedAt: Instant?

    public init(
        originalTransactionID: String, ownerUserID: String? = nil, productID: String? = nil,
        subscriptionGroupID: String? = nil, state: SubscriptionState? = nil, expiresAt: Instant? = nil,
        graceExpiresAt: Instant? = nil, autoRenew: Bool? = nil, nextProductID: String? = nil,
        priceIncrease: PriceIncreaseConsent? = nil, offer: Offer? = nil, environment: StoreEnvironment? = nil,
        familyShared: Bool = false, latestTransactionID: String? = nil, appTransactionID: String? = nil,
        billingPlanType: String? = nil, commitment: Commitment? = nil, productsEverPurchased: [String] = [],
        activatedAt: Instant? = nil
    ) {
        self.originalTransactionID = originalTransactionID
        self.ownerUserID = ownerUserID
        self.productID = productID
        self.subscriptionGroupID = subscriptionGroupID
        self.state = state
        self.expiresAt = expiresAt
        self.graceExpiresAt = graceExpiresAt
        self.autoRenew = autoRenew
        self.nextProductID = nextProductID
        self.priceIncrease = priceIncrease
        self.offer = offer
        self.environment = environment
        self.familyShared = familyShared
        self.latestTransactionID = latestTransactionID
        self.appTransactionID = appTransactionID
        self.billingPlanType = billingPlanType
        self.commitment = commitment
        self.productsEverPurchased = productsEverPurchased
        self.activatedAt = activatedAt
    }

    /// Whether any fact about the subscription was recorded: a known transaction or lifecycle always has a state.
    public var isKnown: Bool { state != nil }

    /// The state judged against the clock at `instant`: an active subscription past its expiry has lapsed (the
    /// `EXPIRED` notification may come late, or never for a lost delivery), and a grace period past its end is
    /// billing retry, as Apple goes on to retry billing without access.
    public func state(at instant: Instant) -> SubscriptionState? {
        switch state {
        case .active?:
            guard let end = expiresAt, end <= instant else { return .active }
            return .expired(autoRenew == false ? .voluntary : .lapsed)
        case .inGracePeriod?:
            guard let end = graceExpiresAt ?? expiresAt, end > instant else { return .inBillingRetry }
            return .inGracePeriod
        case let other:
            return other
        }
    }

    /// Whether the subscription gives access at `instant`: active and not past its expiry, or in a grace period
    /// that has not ended.
    public func isEntitled(at instant: Instant) -> Bool {
        switch state(at: instant) {
        case .active?, .inGracePeriod?: return true
        case .inBillingRetry?, .expired?, .revoked?, .refunded?, nil: return false
        }
    }

    /// When access ends if nothing else happens: the grace end in a grace period, else `expiresAt`.
    public var accessEndsAt: Instant? {
        if case .inGracePeriod? = state { return graceExpiresAt ?? expiresAt }
        return expiresAt
    }
}

extension SubscriptionStatus {
    /// The values the per-user views read, derived from the registers.
    public var summary: SubscriptionSummary {
        let latest = latestTransaction?.value
        return SubscriptionSummary(
            originalTransactionID: originalTransactionID, ownerUserID: ownerUserID, productID: latest?.productID,
            subscriptionGroupID: latest?.subscriptionGroupID, state: state, expiresAt: expiresAt,
            graceExpiresAt: graceExpiresAt, autoRenew: autoRenew?.value, nextProductID: nextProductID,
            priceIncrease: priceIncrease?.value, offer: latest?.offer, environment: latest?.environment,
            familyShared: latest?.familyShared ?? false, latestTransactionID: latest?.transactionID,
            appTransactionID: latest?.appTransactionID, billingPlanType: latest?.billingPlanType,
            commitment: latest?.commitment, productsEverPurchased: productsEverPurchased, activatedAt: activatedAt)
    }
}
