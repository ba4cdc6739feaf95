import ExactJSON

/// A decoded signed renewal info (`JWSRenewalInfoDecodedPayload`), every documented field typed; `raw` is verbatim.
public struct RenewalInfoPayload: Sendable, Hashable {
    public var raw: JSONValue

    public var appAccountToken: String?
    public var appTransactionId: String?
    public var autoRenewProductId: String?
    public var autoRenewStatus: AutoRenewStatus?
    public var currency: String?
    public var eligibleWinBackOfferIds: [String]?
    public var environment: AppStoreEnvironment?
    public var expirationIntent: ExpirationIntent?
    public var gracePeriodExpiresDate: AppStoreTimestamp?
    public var isInBillingRetryPeriod: Bool?
    public var offerDiscountType: OfferDiscountType?
    public var offerIdentifier: String?
    public var offerPeriod: String?
    public var offerType: OfferType?
    public var originalTransactionId: String?
    public var priceIncreaseStatus: PriceIncreaseStatus?
    public var productId: String?
    public var recentSubscriptionStartDate: AppStoreTimestamp?
    public var renewalDate: AppStoreTimestamp?
    /// Renewal price in milliunits of `currency`.
    public var renewalPrice: Int64?
    public var signedDate: AppStoreTimestamp?
    /// Advanced Commerce API details, kept verbatim.
    public var advancedCommerceInfo: JSONValue?

    public init(json: JSONValue, path: String = "payload") throws(AppStoreVerificationError) {
        let reader = try JSONObjectReader(json, path: path)
        raw = json
        appAccountToken = try reader.string("appAccountToken")
        appTransactionId = try reader.string("appTransactionId")
        autoRenewProductId = try reader.string("autoRenewProductId")
        autoRenewStatus = try reader.intEnum("autoRenewStatus", as: AutoRenewStatus.self)
        currency = try reader.string("currency")
        eligibleWinBackOfferIds = try reader.strings("eligibleWinBackOfferIds")
        environment = try reader.stringEnum("environment", as: AppStoreEnvironment.self)
        expirationIntent = try reader.intEnum("expirationIntent", as: ExpirationIntent.self)
        gracePeriodExpiresDate = try reader.timestamp("gracePeriodExpiresDate")
        isInBillingRetryPeriod = try reader.bool("isInBillingRetryPeriod")
        offerDiscountType = try reader.stringEnum("offerDiscountType", as: OfferDiscountType.self)
        offerIdentifier = try reader.string("offerIdentifier")
        offerPeriod = try reader.string("offerPeriod")
        offerType = try reader.intEnum("offerType", as: OfferType.self)
        originalTransactionId = try reader.string("originalTransactionId")
        priceIncreaseStatus = try reader.intEnum("priceIncreaseStatus", as: PriceIncreaseStatus.self)
        productId = try reader.string("productId")
        recentSubscriptionStartDate = try reader.timestamp("recentSubscriptionStartDate")
        renewalDate = try reader.timestamp("renewalDate")
        renewalPrice = try reader.int64("renewalPrice")
        signedDate = try reader.timestamp("signedDate")
        advancedCommerceInfo = reader.raw("advancedCommerceInfo")
    }
}
