import ExactJSON

/// A decoded StoreKit 2 signed transaction (`JWSTransactionDecodedPayload`), every documented field typed.
///
/// `raw` keeps the whole payload verbatim, so fields Apple adds later are never lost.
public struct TransactionPayload: Sendable, Hashable {
    public var raw: JSONValue

    public var appAccountToken: String?
    public var appTransactionId: String?
    /// How the customer pays for the subscription (e.g. a monthly plan with a 12-month commitment), verbatim.
    public var billingPlanType: String?
    public var bundleId: String?
    /// The commitment of a subscription billed monthly over a committed term.
    public var commitmentInfo: CommitmentInfo?
    /// ISO 4217 currency code of `price`.
    public var currency: String?
    public var environment: AppStoreEnvironment?
    public var expiresDate: AppStoreTimestamp?
    public var inAppOwnershipType: InAppOwnershipType?
    public var isUpgraded: Bool?
    public var offerDiscountType: OfferDiscountType?
    public var offerIdentifier: String?
    /// ISO 8601 duration of the offer, e.g. `P1M`.
    public var offerPeriod: String?
    public var offerType: OfferType?
    public var originalPurchaseDate: AppStoreTimestamp?
    public var originalTransactionId: String?
    /// Price in milliunits of `currency` (never a floating-point amount).
    public var price: Int64?
    public var productId: String?
    public var purchaseDate: AppStoreTimestamp?
    public var quantity: Int32?
    public var revocationDate: AppStoreTimestamp?
    public var revocationPercentage: Int32?
    public var revocationReason: RevocationReason?
    public var revocationType: RevocationType?
    public var signedDate: AppStoreTimestamp?
    public var storefront: String?
    public var storefrontId: String?
    public var subscriptionGroupIdentifier: String?
    public var transactionId: String?
    public var transactionReason: TransactionReason?
    public var type: ProductType?
    public var webOrderLineItemId: String?
    /// Advanced Commerce API details, kept verbatim.
    public var advancedCommerceInfo: JSONValue?

    public init(json: JSONValue, path: String = "payload") throws(AppStoreVerificationError) {
        let reader = try JSONObjectReader(json, path: path)
        raw = json
        appAccountToken = try reader.string("appAccountToken")
        appTransactionId = try reader.string("appTransactionId")
        billingPlanType = try reader.string("billingPlanType")
        bundleId = try reader.string("bundleId")
        commitmentInfo = try reader.object("commitmentInfo").map { reader throws(AppStoreVerificationError) in
            try CommitmentInfo(reader)
        }
        currency = try reader.string("currency")
        environment = try reader.stringEnum("environment", as: AppStoreEnvironment.self)
        expiresDate = try reader.timestamp("expiresDate")
        inAppOwnershipType = try reader.stringEnum("inAppOwnershipType", as: InAppOwnershipType.self)
        isUpgraded = try reader.bool("isUpgraded")
        offerDiscountType = try reader.stringEnum("offerDiscountType", as: OfferDiscountType.self)
        offerIdentifier = try reader.string("offerIdentifier")
        offerPeriod = try reader.string("offerPeriod")
        offerType = try reader.intEnum("offerType", as: OfferType.self)
        originalPurchaseDate = try reader.timestamp("originalPurchaseDate")
        originalTransactionId = try reader.string("originalTransactionId")
        price = try reader.int64("price")
        productId = try reader.string("productId")
        purchaseDate = try reader.timestamp("purchaseDate")
        quantity = try reader.int32("quantity")
        revocationDate = try reader.timestamp("revocationDate")
        revocationPercentage = try reader.int32("revocationPercentage")
        revocationReason = try reader.intEnum("revocationReason", as: RevocationReason.self)
        revocationType = try reader.stringEnum("revocationType", as: RevocationType.self)
        signedDate = try reader.timestamp("signedDate")
        storefront = try reader.string("storefront")
        storefrontId = try reader.string("storefrontId")
        subscriptionGroupIdentifier = try reader.string("subscriptionGroupIdentifier")
        transactionId = try reader.string("transactionId")
        transactionReason = try reader.stringEnum("transactionReason", as: TransactionReason.self)
        type = try reader.stringEnum("type", as: ProductType.self)
        webOrderLineItemId = try reader.string("webOrderLineItemId")
        advancedCommerceInfo = reader.raw("advancedCommerceInfo")
    }
}

/// `commitmentInfo` of a transaction (`TransactionCommitmentInfo`).
public struct CommitmentInfo: Sendable, Hashable {
    /// Which billing period of the commitment this transaction pays (1-based).
    public var billingPeriodNumber: Int32?
    public var totalBillingPeriods: Int32?
    public var commitmentExpiresDate: AppStoreTimestamp?
    /// The price after the commitment ends, in milliunits of the transaction's `currency`.
    public var commitmentPrice: Int64?

    init(_ reader: JSONObjectReader) throws(AppStoreVerificationError) {
        billingPeriodNumber = try reader.int32("billingPeriodNumber")
        totalBillingPeriods = try reader.int32("totalBillingPeriods")
        commitmentExpiresDate = try reader.timestamp("commitmentExpiresDate")
        commitmentPrice = try reader.int64("commitmentPrice")
    }
}
