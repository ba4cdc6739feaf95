import UTCTime

/// An App Store Server Notification V2 after signature verification, reduced to plain domain values.
///
/// The verification module decodes `signedPayload`, `signedTransactionInfo` and `signedRenewalInfo` and fills
/// this value; `AppStoreNotificationMapping.events(for:)` turns it into ledger events. Keeping the mapping here
/// makes it pure and testable without certificates.
public struct DecodedNotification: Sendable, Equatable {
    public var notificationType: String
    public var subtype: String?
    public var notificationUUID: String
    /// The notification's `signedDate`: orders facts that carry no transaction of their own.
    public var signedDate: Instant
    public var environment: StoreEnvironment
    /// The decoded notification payload as verified, kept verbatim.
    public var rawJSON: String
    /// `data.signedTransactionInfo`, converted; nil for notifications without one (TEST, summaries…).
    public var transaction: TransactionFacts?
    /// The transaction's `type` mapped to a product type ("Consumable", "Non-Consumable",
    /// "Auto-Renewable Subscription", "Non-Renewing Subscription").
    public var productType: ProductType?
    /// Transaction `revocationDate`, for REFUND / REVOKE.
    public var revocationDate: Instant?
    /// Transaction `revocationReason` verbatim.
    public var revocationReason: String?
    /// `data.signedRenewalInfo`, converted.
    public var renewal: RenewalInfo?
    /// `summary` of a `RENEWAL_EXTENSION` / `SUMMARY` notification.
    public var renewalExtensionSummary: RenewalExtensionSummary?

    public init(
        notificationType: String, subtype: String? = nil, notificationUUID: String, signedDate: Instant,
        environment: StoreEnvironment, rawJSON: String, transaction: TransactionFacts? = nil,
        productType: ProductType? = nil, revocationDate: Instant? = nil, revocationReason: String? = nil,
        renewal: RenewalInfo? = nil, renewalExtensionSummary: RenewalExtensionSummary? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.signedDate = signedDate
        self.environment = environment
        self.rawJSON = rawJSON
        self.transaction = transaction
        self.productType = productType
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.renewal = renewal
        self.renewalExtensionSummary = renewalExtensionSummary
    }
}

/// The parts of `JWSRenewalInfoDecodedPayload` the ledger uses.
public struct RenewalInfo: Sendable, Equatable {
    /// `autoRenewProductId`: the product of the next period.
    public var autoRenewProductID: String?
    /// `autoRenewStatus == 1`.
    public var autoRenewEnabled: Bool?
    /// `gracePeriodExpiresDate`.
    public var gracePeriodExpiresAt: Instant?
    /// `renewalDate`, when Apple gives it (used for renewal extensions when the transaction has none).
    public var renewalDate: Instant?

    public init(
        autoRenewProductID: String? = nil, autoRenewEnabled: Bool? = nil, gracePeriodExpiresAt: Instant? = nil,
        renewalDate: Instant? = nil
    ) {
        self.autoRenewProductID = autoRenewProductID
        self.autoRenewEnabled = autoRenewEnabled
        self.gracePeriodExpiresAt = gracePeriodExpiresAt
        self.renewalDate = renewalDate
    }
}
