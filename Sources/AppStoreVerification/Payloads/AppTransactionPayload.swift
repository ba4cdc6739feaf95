import ExactJSON

/// A decoded signed app transaction (`AppTransaction`), every documented field typed; `raw` is verbatim.
public struct AppTransactionPayload: Sendable, Hashable {
    public var raw: JSONValue

    public var appAppleId: Int64?
    public var appTransactionId: String?
    public var applicationVersion: String?
    public var bundleId: String?
    public var deviceVerification: String?
    public var deviceVerificationNonce: String?
    public var originalApplicationVersion: String?
    public var originalPlatform: String?
    public var originalPurchaseDate: AppStoreTimestamp?
    public var preorderDate: AppStoreTimestamp?
    public var receiptCreationDate: AppStoreTimestamp?
    /// The environment the app transaction comes from (`receiptType`).
    public var receiptType: AppStoreEnvironment?
    public var requestDate: AppStoreTimestamp?
    public var versionExternalIdentifier: Int64?

    public init(json: JSONValue, path: String = "payload") throws(AppStoreVerificationError) {
        let reader = try JSONObjectReader(json, path: path)
        raw = json
        appAppleId = try reader.int64("appAppleId")
        appTransactionId = try reader.string("appTransactionId")
        applicationVersion = try reader.string("applicationVersion")
        bundleId = try reader.string("bundleId")
        deviceVerification = try reader.string("deviceVerification")
        deviceVerificationNonce = try reader.string("deviceVerificationNonce")
        originalApplicationVersion = try reader.string("originalApplicationVersion")
        originalPlatform = try reader.string("originalPlatform")
        originalPurchaseDate = try reader.timestamp("originalPurchaseDate")
        preorderDate = try reader.timestamp("preorderDate")
        receiptCreationDate = try reader.timestamp("receiptCreationDate")
        receiptType = try reader.stringEnum("receiptType", as: AppStoreEnvironment.self)
        requestDate = try reader.timestamp("requestDate")
        versionExternalIdentifier = try reader.int64("versionExternalIdentifier")
    }

    /// The date the chain is validated at: Apple's app transactions carry no `signedDate`.
    var signingDate: AppStoreTimestamp? { receiptCreationDate }
}
