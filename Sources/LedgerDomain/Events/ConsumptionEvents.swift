/// Apple asks for consumption information to decide a refund (`CONSUMPTION_REQUEST`). Recorded so the
/// developer's answer can be traced; it changes no projection state.
public struct ConsumptionRequest: Sendable, Hashable, Codable {
    public var subscription: SubscriptionRef
    public var transactionID: String
    public init(subscription: SubscriptionRef, transactionID: String) {
        self.subscription = subscription
        self.transactionID = transactionID
    }
}

/// The developer delivered a consumable and marked it consumed (the seed's "consume" API). Produced only by
/// `ConsumptionRules.consume`, which checks ownership and state first.
public struct Consumption: Sendable, Hashable, Codable {
    public var appUserID: String
    public var productID: String
    public var transactionID: String
    public var originalTransactionID: String
    public var consumedAt: Instant
    public init(
        appUserID: String, productID: String, transactionID: String, originalTransactionID: String,
        consumedAt: Instant
    ) {
        self.appUserID = appUserID
        self.productID = productID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.consumedAt = consumedAt
    }
}
