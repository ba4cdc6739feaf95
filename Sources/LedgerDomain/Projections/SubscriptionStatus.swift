import UTCTime

/// The status of one auto-renewable subscription (one original transaction id), built to converge under
/// out-of-order and duplicated delivery.
///
/// Each part is a last-writer-wins register stamped with the fact's own time: the latest transaction by
/// purchase date, the lifecycle by purchase date (transactions) or signed date (notifications), auto-renew,
/// pending product and price-increase consent by signed date. Derived values (`state`, `expiresAt`) are
/// computed from the registers, so no delivery order can leave them inconsistent.
public struct SubscriptionStatus: Sendable, Codable, Equatable {
    public var originalTransactionID: String
    /// The latest transaction (greatest purchase date, then transaction id).
    public var latestTransaction: Register<TransactionFacts>?
    /// Lifecycle as last reported, with the grace end for `.inGracePeriod`.
    public var lifecycle: Register<Lifecycle>?
    public var autoRenew: Register<Bool>?
    /// The product the subscription renews into when it differs from the current one (pending downgrade /
    /// crossgrade); nil value = renews into the current product.
    public var nextProduct: Register<String?>?
    public var priceIncrease: Register<PriceIncreaseConsent>?
    /// The latest renewal extension (greatest new expiry date).
    public var extendedExpiresAt: Register<Instant>?
    /// Refund / revocation standing of transactions of this subscription, by transaction id.
    public var standings: [String: Register<TransactionStanding>]
    public var owner: OwnerClaim?
    /// Every product this subscription was ever on (sorted): "every product the user ever bought".
    public var productsEverPurchased: [String]
    /// Whether an introductory offer was ever used (eligibility is per group).
    public var usedIntroductoryOffer: Bool
    /// The earliest purchase date seen: when the subscription was activated.
    public var activatedAt: Instant?

    /// The lifecycle register's value.
    public struct Lifecycle: Sendable, Codable, Hashable {
        public var state: SubscriptionState
        public var graceExpiresAt: Instant?
        /// The end of the paid period the fact is about (the expiry of the transaction Apple sent with it), when
        /// known: an expiry or billing failure about an older period never ends a newer one.
        public var periodEndsAt: Instant?
        public init(state: SubscriptionState, graceExpiresAt: Instant? = nil, periodEndsAt: Instant? = nil) {
            self.state = state
            self.graceExpiresAt = graceExpiresAt
            self.periodEndsAt = periodEndsAt
        }
    }

    /// An empty status: nothing known yet.
    public init(originalTransactionID: String) {
        self.originalTransactionID = originalTransactionID
        self.standings = [:]
        self.productsEverPurchased = []
        self.usedIntroductoryOffer = false
    }

    // MARK: Derived values

    /// Whether any fact about the subscription was recorded.
    public var isKnown: Bool { latestTransaction != nil || lifecycle != nil }
    public var productID: String? { latestTransaction?.value.productID }
    public var subscriptionGroupID: String? { latestTransaction?.value.subscriptionGroupID }
    public var environment: StoreEnvironment? { latestTransaction?.value.environment }
    public var familyShared: Bool { latestTransaction?.value.familyShared ?? false }
    public var latestTransactionID: String? { latestTransaction?.value.transactionID }
    public var offerInEffect: Offer? { latestTransaction?.value.offer }
    public var ownerUserID: String? { owner?.appUserID }
    public var graceExpiresAt: Instant? {
        if case .inGracePeriod = state { return lifecycle?.value.graceExpiresAt }
        return nil
    }
    public var nextProductID: String? { nextProduct?.value }

    /// The end of the paid period: the latest transaction's expiry, or a later renewal extension made after it.
    public var expiresAt: Instant? {
        let base = latestTransaction?.value.expiresDate
        guard let ext = extendedExpiresAt else { return base }
        if let tx = latestTransaction, ext.stamp.at < tx.value.purchaseDate { return base }
        guard let base else { return ext.value }
        return max(base, ext.value)
    }

    /// The state as Apple last reported it: refunded / revoked when the latest transaction is, else the lifecycle,
    /// unless that lifecycle fact is about a paid period older than the latest transaction's. Apple signs and
    /// delivers notifications late, so an `EXPIRED` about the previous period can be signed after the purchase that
    /// started the next one; the newer period is active whatever the signing order.
    public var state: SubscriptionState? {
        if let id = latestTransactionID, let standing = standings[id]?.value {
            switch standing {
            case .refunded: return .refunded
            case .revoked: return .revoked
            case .valid: break
            }
        }
        guard let lifecycle else { return latestTransaction == nil ? nil : .active }
        if let about = lifecycle.value.periodEndsAt, let current = latestTransaction?.value.expiresDate, current > about {
            return .active
        }
        return lifecycle.value.state
    }

    /// See `SubscriptionSummary.state(at:)`.
    public func state(at instant: Instant) -> SubscriptionState? { summary.state(at: instant) }

    /// See `SubscriptionSummary.isEntitled(at:)`.
    public func isEntitled(at instant: Instant) -> Bool { summary.isEntitled(at: instant) }

    /// See `SubscriptionSummary.accessEndsAt`.
    public var accessEndsAt: Instant? { summary.accessEndsAt }
}
