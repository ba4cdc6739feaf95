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

/// The ledger answered Apple's `CONSUMPTION_REQUEST` about `transactionID` with Send Consumption Information (for an
/// app that opted in): what it sent, so the answer can be traced and is sent once. It changes no projection state.
public struct ConsumptionInformationSent: Sendable, Hashable, Codable {
    public var originalTransactionID: String
    /// The transaction the request was about (the key: one answer per request).
    public var transactionID: String
    public var productID: String
    public var environment: StoreEnvironment
    /// When Apple signed the request that this answers.
    public var requestSignedDate: Instant
    public var sentAt: Instant
    /// The body sent, Apple's field names and values (`consumptionStatus`, `deliveryStatus`, `platform`, …).
    public var consumptionStatus: Int
    public var deliveryStatus: Int
    public var platform: Int
    public var customerConsented: Bool

    public init(originalTransactionID: String, transactionID: String, productID: String, environment: StoreEnvironment,
                requestSignedDate: Instant, sentAt: Instant, consumptionStatus: Int, deliveryStatus: Int, platform: Int,
                customerConsented: Bool) {
        self.originalTransactionID = originalTransactionID
        self.transactionID = transactionID
        self.productID = productID
        self.environment = environment
        self.requestSignedDate = requestSignedDate
        self.sentAt = sentAt
        self.consumptionStatus = consumptionStatus
        self.deliveryStatus = deliveryStatus
        self.platform = platform
        self.customerConsented = customerConsented
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
