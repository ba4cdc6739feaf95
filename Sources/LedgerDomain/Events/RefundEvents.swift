import UTCTime

/// Apple refunded a transaction (`REFUND`). The transaction no longer grants anything; a refunded consumable
/// leaves the unconsumed list.
public struct Refund: Sendable, Hashable, Codable {
    /// The subscription or one-time purchase; `signedDate` orders the refund against other facts.
    public var subscription: SubscriptionRef
    public var transactionID: String
    /// `revocationDate`.
    public var refundDate: Instant
    /// `revocationReason` verbatim (0 = other, 1 = app issue), when given.
    public var reason: String?
    public init(subscription: SubscriptionRef, transactionID: String, refundDate: Instant, reason: String? = nil) {
        self.subscription = subscription
        self.transactionID = transactionID
        self.refundDate = refundDate
        self.reason = reason
    }
}

/// Apple declined a refund request (`REFUND_DECLINED`): nothing changes but the history.
public struct RefundDeclined: Sendable, Hashable, Codable {
    public var subscription: SubscriptionRef
    public var transactionID: String
    public init(subscription: SubscriptionRef, transactionID: String) {
        self.subscription = subscription
        self.transactionID = transactionID
    }
}

/// Apple reversed an earlier refund (`REFUND_REVERSED`): the transaction grants access again.
public struct RefundReversed: Sendable, Hashable, Codable {
    public var subscription: SubscriptionRef
    public var transactionID: String
    public init(subscription: SubscriptionRef, transactionID: String) {
        self.subscription = subscription
        self.transactionID = transactionID
    }
}

/// Access obtained through Family Sharing was withdrawn (`REVOKE`): the purchaser left the family, stopped
/// sharing, or was refunded.
public struct Revocation: Sendable, Hashable, Codable {
    public var subscription: SubscriptionRef
    public var transactionID: String
    public var revocationDate: Instant
    public init(subscription: SubscriptionRef, transactionID: String, revocationDate: Instant) {
        self.subscription = subscription
        self.transactionID = transactionID
        self.revocationDate = revocationDate
    }
}
