import UTCTime

/// The App Store environment a fact came from, kept as Apple's raw string ("Production", "Sandbox", "Xcode",
/// "LocalTesting") so that a value Apple adds later is recorded, not rejected.
public struct StoreEnvironment: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let production = StoreEnvironment(rawValue: "Production")
    public static let sandbox = StoreEnvironment(rawValue: "Sandbox")
    public static let xcode = StoreEnvironment(rawValue: "Xcode")
    public static let localTesting = StoreEnvironment(rawValue: "LocalTesting")

    /// Only production money counts for paying users and invoices.
    public var isProduction: Bool { self == .production }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
    public var description: String { rawValue }
}

/// The offer a transaction was bought with (Apple `offerType` 1…4).
public enum OfferType: String, Sendable, Hashable, Codable, CaseIterable {
    case introductory
    case promotional
    case offerCode
    case winBack
}

/// An offer applied to a purchase or renewal.
public struct Offer: Sendable, Hashable, Codable {
    /// Which kind of offer.
    public var type: OfferType
    /// The offer identifier (promotional / offer code / win-back), nil for introductory offers.
    public var identifier: String?
    /// Apple's `offerDiscountType` verbatim ("FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT").
    public var paymentMode: String?
    /// Apple's `offerPeriod`: how long the offer lasts, as an ISO 8601 duration (`P1M`).
    public var period: String?

    public init(type: OfferType, identifier: String? = nil, paymentMode: String? = nil, period: String? = nil) {
        self.type = type
        self.identifier = identifier
        self.paymentMode = paymentMode
        self.period = period
    }
}

/// A subscription paid per period over a committed term (Apple's `commitmentInfo`).
public struct Commitment: Sendable, Hashable, Codable {
    /// The billing period this transaction pays, 1-based.
    public var billingPeriodNumber: Int?
    public var totalBillingPeriods: Int?
    public var expiresAt: Instant?
    /// The price after the commitment ends.
    public var priceAfter: Money?

    public init(
        billingPeriodNumber: Int? = nil, totalBillingPeriods: Int? = nil, expiresAt: Instant? = nil,
        priceAfter: Money? = nil
    ) {
        self.billingPeriodNumber = billingPeriodNumber
        self.totalBillingPeriods = totalBillingPeriods
        self.expiresAt = expiresAt
        self.priceAfter = priceAfter
    }
}

/// What a transaction says, as projections need it: one value shared by every purchase-like event so that the
/// same fact arriving by receipt, by SDK upload and by notification produces the same payload.
public struct TransactionFacts: Sendable, Hashable, Codable {
    /// The app's user, when known (SDK upload, `appAccountToken` mapping); nil for bare notifications.
    public var appUserID: String?
    public var productID: String
    public var transactionID: String
    /// Every projection of a subscription or one-time purchase is keyed by this id.
    public var originalTransactionID: String
    public var subscriptionGroupID: String?
    public var environment: StoreEnvironment
    public var purchaseDate: Instant
    public var originalPurchaseDate: Instant?
    public var expiresDate: Instant?
    /// When Apple signed the data: the clock that orders facts about one subscription.
    public var signedDate: Instant
    /// Price in milliunits with its currency, when Apple tells it.
    public var price: Money?
    public var offer: Offer?
    /// `inAppOwnershipType == FAMILY_SHARED`.
    public var familyShared: Bool
    /// The developer's payload / `appAccountToken`, returned with unconsumed purchases.
    public var developerPayload: String?
    public var quantity: Int
    public var storefront: String?
    public var webOrderLineItemID: String?
    /// Apple's `appTransactionId`: the app download this purchase belongs to, one per Apple Account and app.
    public var appTransactionID: String?
    /// Apple's `billingPlanType`, verbatim.
    public var billingPlanType: String?
    public var commitment: Commitment?

    public init(
        appUserID: String? = nil, productID: String, transactionID: String, originalTransactionID: String,
        subscriptionGroupID: String? = nil, environment: StoreEnvironment = .production, purchaseDate: Instant,
        originalPurchaseDate: Instant? = nil, expiresDate: Instant? = nil, signedDate: Instant,
        price: Money? = nil, offer: Offer? = nil, familyShared: Bool = false, developerPayload: String? = nil,
        quantity: Int = 1, storefront: String? = nil, webOrderLineItemID: String? = nil,
        appTransactionID: String? = nil, billingPlanType: String? = nil, commitment: Commitment? = nil
    ) {
        self.appUserID = appUserID
        self.productID = productID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.subscriptionGroupID = subscriptionGroupID
        self.environment = environment
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.signedDate = signedDate
        self.price = price
        self.offer = offer
        self.familyShared = familyShared
        self.developerPayload = developerPayload
        self.quantity = quantity
        self.storefront = storefront
        self.webOrderLineItemID = webOrderLineItemID
        self.appTransactionID = appTransactionID
        self.billingPlanType = billingPlanType
        self.commitment = commitment
    }

    private enum CodingKeys: String, CodingKey {
        case appUserID, productID, transactionID, originalTransactionID, subscriptionGroupID, environment
        case purchaseDate, originalPurchaseDate, expiresDate, signedDate, price, offer, familyShared
        case developerPayload, quantity, storefront, webOrderLineItemID, appTransactionID, billingPlanType, commitment
    }

    /// Tolerant decoding: fields added after schema version 1 default, so old payloads stay readable.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appUserID = try c.decodeIfPresent(String.self, forKey: .appUserID)
        productID = try c.decode(String.self, forKey: .productID)
        transactionID = try c.decode(String.self, forKey: .transactionID)
        originalTransactionID = try c.decode(String.self, forKey: .originalTransactionID)
        subscriptionGroupID = try c.decodeIfPresent(String.self, forKey: .subscriptionGroupID)
        environment = try c.decodeIfPresent(StoreEnvironment.self, forKey: .environment) ?? .production
        purchaseDate = try c.decode(Instant.self, forKey: .purchaseDate)
        originalPurchaseDate = try c.decodeIfPresent(Instant.self, forKey: .originalPurchaseDate)
        expiresDate = try c.decodeIfPresent(Instant.self, forKey: .expiresDate)
        signedDate = try c.decodeIfPresent(Instant.self, forKey: .signedDate) ?? purchaseDate
        price = try c.decodeIfPresent(Money.self, forKey: .price)
        offer = try c.decodeIfPresent(Offer.self, forKey: .offer)
        familyShared = try c.decodeIfPresent(Bool.self, forKey: .familyShared) ?? false
        developerPayload = try c.decodeIfPresent(String.self, forKey: .developerPayload)
        quantity = try c.decodeIfPresent(Int.self, forKey: .quantity) ?? 1
        storefront = try c.decodeIfPresent(String.self, forKey: .storefront)
        webOrderLineItemID = try c.decodeIfPresent(String.self, forKey: .webOrderLineItemID)
        appTransactionID = try c.decodeIfPresent(String.self, forKey: .appTransactionID)
        billingPlanType = try c.decodeIfPresent(String.self, forKey: .billingPlanType)
        commitment = try c.decodeIfPresent(Commitment.self, forKey: .commitment)
    }
}

/// Identifies the subscription (or one-time purchase) a notification-only fact is about, with Apple's
/// signing time that orders it against other facts.
public struct SubscriptionRef: Sendable, Hashable, Codable {
    public var appUserID: String?
    public var productID: String
    public var originalTransactionID: String
    public var subscriptionGroupID: String?
    public var environment: StoreEnvironment
    /// The notification's (or renewal info's) `signedDate`.
    public var signedDate: Instant

    public init(
        appUserID: String? = nil, productID: String, originalTransactionID: String,
        subscriptionGroupID: String? = nil, environment: StoreEnvironment = .production, signedDate: Instant
    ) {
        self.appUserID = appUserID
        self.productID = productID
        self.originalTransactionID = originalTransactionID
        self.subscriptionGroupID = subscriptionGroupID
        self.environment = environment
        self.signedDate = signedDate
    }
}
