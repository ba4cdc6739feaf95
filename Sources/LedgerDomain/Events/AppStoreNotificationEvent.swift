import UTCTime

/// An App Store Server Notification V2 exactly as decoded, kept for every type and subtype (including ones this
/// version does not know: `TEST`, `METADATA_UPDATE`, `MIGRATION`, `RESCIND_CONSENT`, `EXTERNAL_PURCHASE_TOKEN`,
/// `PRICE_CHANGE`, `RENEWAL_EXTENSION` / `FAILURE`, future types…).
///
/// The typed events derived from a notification are recorded beside it; this one is the verbatim evidence, so
/// that a later version of the mapping can be replayed over history. Projections ignore it.
public struct AppStoreNotification: Sendable, Hashable, Codable {
    /// `notificationType` verbatim.
    public var notificationType: String
    /// `subtype` verbatim, if any.
    public var subtype: String?
    /// `notificationUUID`: the idempotency key of the delivery.
    public var notificationUUID: String
    public var signedDate: Instant?
    public var environment: StoreEnvironment?
    /// The original transaction id in the notification's transaction info, when there is one.
    public var originalTransactionID: String?
    /// The decoded notification payload as JSON text, byte for byte as verified.
    public var rawJSON: String
    /// The outcome of a mass renewal-date extension (`RENEWAL_EXTENSION` / `SUMMARY`), typed so that it can be
    /// queried without parsing `rawJSON`.
    public var renewalExtensionSummary: RenewalExtensionSummary?

    public init(
        notificationType: String, subtype: String? = nil, notificationUUID: String, signedDate: Instant? = nil,
        environment: StoreEnvironment? = nil, originalTransactionID: String? = nil, rawJSON: String,
        renewalExtensionSummary: RenewalExtensionSummary? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.signedDate = signedDate
        self.environment = environment
        self.originalTransactionID = originalTransactionID
        self.rawJSON = rawJSON
        self.renewalExtensionSummary = renewalExtensionSummary
    }
}

/// Apple's `summary` of a request to extend the renewal date of every eligible subscriber of a product.
public struct RenewalExtensionSummary: Sendable, Hashable, Codable {
    /// The `requestIdentifier` the developer sent with the extension request.
    public var requestIdentifier: String?
    public var productID: String?
    /// The storefronts the request covered (empty: all).
    public var storefrontCountryCodes: [String]
    public var succeededCount: Int64
    public var failedCount: Int64

    public init(
        requestIdentifier: String?, productID: String?, storefrontCountryCodes: [String],
        succeededCount: Int64, failedCount: Int64
    ) {
        self.requestIdentifier = requestIdentifier
        self.productID = productID
        self.storefrontCountryCodes = storefrontCountryCodes
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }
}
