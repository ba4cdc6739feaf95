import UTCTime

/// The four App Store product types, also used for purchases made outside the App Store.
public enum ProductType: String, Sendable, Hashable, Codable, CaseIterable {
    case consumable
    case nonConsumable
    case autoRenewable
    case nonRenewing
}

/// A one-time purchase (consumable, non-consumable or non-renewing subscription) made in the App Store.
/// The product type is the event case, not a field, so a reducer's `switch` sees it.
public struct Purchase: Sendable, Hashable, Codable {
    public var transaction: TransactionFacts
    public init(transaction: TransactionFacts) { self.transaction = transaction }
}

/// The first purchase of an auto-renewable subscription (`SUBSCRIBED` / `INITIAL_BUY`) or a new purchase after
/// it had expired (`RESUBSCRIBE`). An offer used to buy it is in `transaction.offer`.
public struct SubscriptionStarted: Sendable, Hashable, Codable {
    public var transaction: TransactionFacts
    /// True for `RESUBSCRIBE`: the same original transaction id comes back to life.
    public var isResubscribe: Bool
    public init(transaction: TransactionFacts, isResubscribe: Bool = false) {
        self.transaction = transaction
        self.isResubscribe = isResubscribe
    }
}

/// A purchase paid outside the App Store (card, Apple Pay, PayPal), recorded by the developer's server through
/// the server-to-server API. The ledger never sees card data: only the provider's payment id.
public struct ExternalPurchase: Sendable, Hashable, Codable {
    public var appUserID: String
    public var productID: String
    public var productType: ProductType
    /// The provider's payment / charge id: the idempotency key and the "original transaction id" of projections.
    public var paymentID: String
    /// E.g. "paylike", "bluesnap".
    public var provider: String
    public var purchasedAt: Instant
    /// For subscriptions and non-renewing passes sold outside the store.
    public var expiresDate: Instant?
    public var price: Money
    /// "Production" for live payments; anything else (test mode) never counts as paying.
    public var environment: StoreEnvironment
    public var developerPayload: String?

    public init(
        appUserID: String, productID: String, productType: ProductType, paymentID: String, provider: String,
        purchasedAt: Instant, expiresDate: Instant? = nil, price: Money, environment: StoreEnvironment = .production,
        developerPayload: String? = nil
    ) {
        self.appUserID = appUserID
        self.productID = productID
        self.productType = productType
        self.paymentID = paymentID
        self.provider = provider
        self.purchasedAt = purchasedAt
        self.expiresDate = expiresDate
        self.price = price
        self.environment = environment
        self.developerPayload = developerPayload
    }
}
