import UTCTime

/// A renewal transaction (`DID_RENEW`), or a renewal after billing retry (`DID_RENEW` / `BILLING_RECOVERY`,
/// recorded as `LedgerEvent.billingRecovered`). An offer in effect for the period is in `transaction.offer`.
public struct Renewal: Sendable, Hashable, Codable {
    public var transaction: TransactionFacts
    public init(transaction: TransactionFacts) { self.transaction = transaction }
}

/// Apple could not charge the renewal (`DID_FAIL_TO_RENEW`). With `GRACE_PERIOD` the user keeps access until
/// `gracePeriodExpiresAt`; without it the subscription is in billing retry and gives no access.
public struct BillingFailure: Sendable, Hashable, Codable {
    public var subscription: SubscriptionRef
    /// Set for `DID_FAIL_TO_RENEW` / `GRACE_PERIOD` (renewal info `gracePeriodExpiresDate`).
    public var gracePeriodExpiresAt: Instant?
    /// The expiry of the transaction whose renewal failed, when known: the period this failure is about.
    public var expiresDate: Instant?
    public init(subscription: SubscriptionRef, gracePeriodExpiresAt: Instant? = nil, expiresDate: Instant? = nil) {
        self.subscription = subscription
        self.gracePeriodExpiresAt = gracePeriodExpiresAt
        self.expiresDate = expiresDate
    }
}

/// The grace period ended without recovery (`GRACE_PERIOD_EXPIRED`); Apple keeps retrying billing.
public struct GracePeriodExpired: Sendable, Hashable, Codable {
    public var subscription: SubscriptionRef
    /// The expiry of the transaction whose renewal failed, when known: the period this is about.
    public var expiresDate: Instant?
    public init(subscription: SubscriptionRef, expiresDate: Instant? = nil) {
        self.subscription = subscription
        self.expiresDate = expiresDate
    }
}
