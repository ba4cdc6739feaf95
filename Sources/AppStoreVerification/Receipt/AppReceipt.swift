/// A decoded legacy App Store receipt (the PKCS#7 app receipt), named like Apple's `AppReceipt`.
///
/// Dates are kept as the RFC 3339 text the receipt holds (`…Date`) and as epoch milliseconds (`…DateMs`); an empty
/// date attribute means "absent", as Apple writes it.
public struct AppReceipt: Sendable, Hashable, Codable {
    /// `Production`, `ProductionSandbox`, `ProductionVPP`, `ProductionVPPSandbox`, `Xcode`, `LocalTesting`, ...
    public var receiptType: String?
    /// Attribute 1 (app item id); 0 outside production.
    public var appItemId: Int64?
    public var bundleId: String?
    public var applicationVersion: String?
    /// Attribute 4, base64.
    public var opaqueValue: String?
    /// Attribute 5 (device hash), base64.
    public var sha1Hash: String?
    public var receiptCreationDate: String?
    public var receiptCreationDateMs: Int64?
    public var originalPurchaseDate: String?
    public var originalPurchaseDateMs: Int64?
    public var originalApplicationVersion: String?
    public var expirationDate: String?
    public var expirationDateMs: Int64?
    public var inAppPurchases: [InAppPurchaseReceipt] = []
    /// Attributes not modelled here, with their raw value bytes, so nothing is dropped.
    public var unknownAttributes: [ReceiptAttribute] = []

    public init() {}

    /// The environment `receiptType` denotes, as Apple's library maps it; nil for unknown types.
    public var environment: AppStoreEnvironment? {
        switch receiptType {
        case "Production", "ProductionVPP": .production
        case "ProductionSandbox", "ProductionVPPSandbox": .sandbox
        case "Xcode": .xcode
        case "LocalTesting": .localTesting
        default: nil
        }
    }
}

/// One in-app purchase (attribute 17) of a receipt.
public struct InAppPurchaseReceipt: Sendable, Hashable, Codable {
    public var quantity: Int64?
    public var productId: String?
    public var transactionId: String?
    public var purchaseDate: String?
    public var purchaseDateMs: Int64?
    public var originalTransactionId: String?
    public var originalPurchaseDate: String?
    public var originalPurchaseDateMs: Int64?
    public var expiresDate: String?
    public var expiresDateMs: Int64?
    public var webOrderLineItemId: Int64?
    public var cancellationDate: String?
    public var cancellationDateMs: Int64?
    public var isInIntroOfferPeriod: Bool?
    public var unknownAttributes: [ReceiptAttribute] = []

    public init() {}
}

/// A receipt attribute kept undecoded: `type`, `version` and the value bytes (base64).
public struct ReceiptAttribute: Sendable, Hashable, Codable {
    public var type: Int64
    public var version: Int64
    public var value: String

    public init(type: Int64, version: Int64, value: String) {
        self.type = type
        self.version = version
        self.value = value
    }
}
