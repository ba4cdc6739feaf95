import ExactJSON

/// A decoded App Store Server Notification V2 (`ResponseBodyV2DecodedPayload`); `raw` is verbatim.
///
/// `data`, `summary`, `externalPurchaseToken` and `appData` are mutually exclusive; which one is present depends on
/// the notification type. The signed transaction / renewal info inside `data` stay as strings here: the verifier
/// verifies and decodes them separately (see `VerifiedNotification`).
public struct NotificationPayload: Sendable, Hashable {
    public var raw: JSONValue

    public var notificationType: NotificationType?
    public var subtype: NotificationSubtype?
    public var notificationUUID: String?
    public var version: String?
    public var signedDate: AppStoreTimestamp?
    public var data: NotificationData?
    public var summary: NotificationSummary?
    public var externalPurchaseToken: ExternalPurchaseTokenInfo?
    public var appData: NotificationAppData?

    public init(json: JSONValue, path: String = "payload") throws(AppStoreVerificationError) {
        let reader = try JSONObjectReader(json, path: path)
        raw = json
        notificationType = try reader.stringEnum("notificationType", as: NotificationType.self)
        subtype = try reader.stringEnum("subtype", as: NotificationSubtype.self)
        notificationUUID = try reader.string("notificationUUID")
        version = try reader.string("version")
        signedDate = try reader.timestamp("signedDate")
        data = try reader.object("data").map { reader throws(AppStoreVerificationError) in try NotificationData(reader) }
        summary = try reader.object("summary").map { reader throws(AppStoreVerificationError) in try NotificationSummary(reader) }
        externalPurchaseToken = try reader.object("externalPurchaseToken").map { reader throws(AppStoreVerificationError) in
            try ExternalPurchaseTokenInfo(reader)
        }
        appData = try reader.object("appData").map { reader throws(AppStoreVerificationError) in try NotificationAppData(reader) }
    }

    /// The app identity and environment the notification claims, wherever the notification type carries them.
    /// External purchase tokens carry no environment: like Apple, a `SANDBOX` id prefix means Sandbox.
    var appIdentity: (bundleId: String?, appAppleId: Int64?, environment: AppStoreEnvironment?) {
        if let data { return (data.bundleId, data.appAppleId, data.environment) }
        if let summary { return (summary.bundleId, summary.appAppleId, summary.environment) }
        if let token = externalPurchaseToken {
            let sandbox = token.externalPurchaseId?.hasPrefix("SANDBOX") == true
            return (token.bundleId, token.appAppleId, sandbox ? .sandbox : .production)
        }
        if let appData { return (appData.bundleId, appData.appAppleId, appData.environment) }
        return (nil, nil, nil)
    }
}

/// `data` of a notification: the app, and the signed transaction / renewal info it is about.
public struct NotificationData: Sendable, Hashable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var bundleVersion: String?
    public var environment: AppStoreEnvironment?
    /// A JWS; verified and decoded separately.
    public var signedTransactionInfo: String?
    /// A JWS; verified and decoded separately.
    public var signedRenewalInfo: String?
    public var status: SubscriptionStatus?
    public var consumptionRequestReason: ConsumptionRequestReason?

    init(_ reader: JSONObjectReader) throws(AppStoreVerificationError) {
        appAppleId = try reader.int64("appAppleId")
        bundleId = try reader.string("bundleId")
        bundleVersion = try reader.string("bundleVersion")
        environment = try reader.stringEnum("environment", as: AppStoreEnvironment.self)
        signedTransactionInfo = try reader.string("signedTransactionInfo")
        signedRenewalInfo = try reader.string("signedRenewalInfo")
        status = try reader.intEnum("status", as: SubscriptionStatus.self)
        consumptionRequestReason = try reader.stringEnum("consumptionRequestReason", as: ConsumptionRequestReason.self)
    }
}

/// `summary` of a RENEWAL_EXTENSION / SUMMARY notification.
public struct NotificationSummary: Sendable, Hashable {
    public var requestIdentifier: String?
    public var environment: AppStoreEnvironment?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var productId: String?
    public var storefrontCountryCodes: [String]?
    public var failedCount: Int64?
    public var succeededCount: Int64?

    init(_ reader: JSONObjectReader) throws(AppStoreVerificationError) {
        requestIdentifier = try reader.string("requestIdentifier")
        environment = try reader.stringEnum("environment", as: AppStoreEnvironment.self)
        appAppleId = try reader.int64("appAppleId")
        bundleId = try reader.string("bundleId")
        productId = try reader.string("productId")
        storefrontCountryCodes = try reader.strings("storefrontCountryCodes")
        failedCount = try reader.int64("failedCount")
        succeededCount = try reader.int64("succeededCount")
    }
}

/// `externalPurchaseToken` of an EXTERNAL_PURCHASE_TOKEN notification.
public struct ExternalPurchaseTokenInfo: Sendable, Hashable {
    public var externalPurchaseId: String?
    public var tokenCreationDate: AppStoreTimestamp?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var tokenType: String?

    init(_ reader: JSONObjectReader) throws(AppStoreVerificationError) {
        externalPurchaseId = try reader.string("externalPurchaseId")
        tokenCreationDate = try reader.timestamp("tokenCreationDate")
        appAppleId = try reader.int64("appAppleId")
        bundleId = try reader.string("bundleId")
        tokenType = try reader.string("tokenType")
    }
}

/// `appData` of app-level notifications such as RESCIND_CONSENT.
public struct NotificationAppData: Sendable, Hashable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var environment: AppStoreEnvironment?
    /// A JWS app transaction, kept as received.
    public var signedAppTransactionInfo: String?

    init(_ reader: JSONObjectReader) throws(AppStoreVerificationError) {
        appAppleId = try reader.int64("appAppleId")
        bundleId = try reader.string("bundleId")
        environment = try reader.stringEnum("environment", as: AppStoreEnvironment.self)
        signedAppTransactionInfo = try reader.string("signedAppTransactionInfo")
    }
}
