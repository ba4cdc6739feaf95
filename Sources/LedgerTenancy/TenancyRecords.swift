import LedgerDomain
import LedgerStore
import PostgresClient
import UTCTime

/// A billing account: what finance invoices. It owns apps.
public struct Account: Sendable, Equatable {
    public var id: String
    public var name: String
    public var createdAt: Instant
}

/// An app of an account, with what verifying and recording its App Store data needs.
public struct AppRecord: Sendable, Equatable {
    public var id: String
    public var accountID: String
    public var name: String
    public var bundleID: String
    public var appleAppID: Int64?
    public var transferPolicy: TransferPolicy
    /// Whether Xcode / StoreKit local-testing data (self-signed) is accepted; never counts as paying.
    public var allowXcode: Bool
    public var appAccountTokenPolicy: AppAccountTokenConvention
    /// How the app's answers to Apple's consumption requests state its refund preference.
    public var refundPolicy: RefundPolicy
    public var createdAt: Instant
}

/// What an app's `appAccountToken` means (see AppStoreIngest's `AppAccountTokenPolicy`).
public enum AppAccountTokenConvention: String, Sendable, Equatable, CaseIterable {
    case ignore
    case tokenIsAppUserID = "token_is_app_user_id"
}

/// The two kinds of app key: public (in the app binary; one user's data, through its signed cookie) and
/// secret (the developer's backend; the whole app).
public enum APIKeyKind: String, Sendable, Equatable, CaseIterable {
    case `public`
    case secret

    var prefix: String { self == .public ? "pk_" : "sk_" }
}

/// An API key as stored: never the key itself, only its hash.
public struct APIKeyRecord: Sendable, Equatable {
    public var id: String
    public var appID: String
    public var kind: APIKeyKind
    public var name: String?
    public var createdAt: Instant
    public var revokedAt: Instant?
}

/// A product of an app's catalog.
public struct ProductRecord: Sendable, Equatable {
    public var productID: String
    public var type: ProductType
    public var subscriptionGroup: String?
    public var entitlements: [String]
    public var updatedAt: Instant

    public init(
        productID: String, type: ProductType, subscriptionGroup: String?, entitlements: [String],
        updatedAt: Instant
    ) {
        self.productID = productID
        self.type = type
        self.subscriptionGroup = subscriptionGroup
        self.entitlements = entitlements
        self.updatedAt = updatedAt
    }
}

/// A closed set of values with the names the API and the database use.
public protocol APINamed: CaseIterable {
    var apiName: String { get }
}

extension APINamed {
    /// The value with this API name; nil for any other text.
    public init?(apiName: String) {
        guard let match = Self.allCases.first(where: { $0.apiName == apiName }) else { return nil }
        self = match
    }
}

extension TransferPolicy: APINamed {
    /// The name used in the API and the database.
    public var apiName: String {
        switch self {
        case .transfer: "transfer"
        case .transferIfNoActive: "transfer_if_no_active"
        case .keepAndRefuse: "keep_and_refuse"
        }
    }
}

extension ProductType: APINamed {
    /// The name used in the API and the database.
    public var apiName: String {
        switch self {
        case .consumable: "consumable"
        case .nonConsumable: "non_consumable"
        case .nonRenewing: "non_renewing"
        case .autoRenewable: "auto_renewable"
        }
    }
}

extension Array where Element == ProductRecord {
    /// The catalog the per-user views use: product → entitlements. A product configured with no entitlements
    /// grants one named after itself (as an unconfigured product does).
    public var catalog: Catalog {
        Catalog(
            entitlementsByProduct: Dictionary(
                map { ($0.productID, $0.entitlements.isEmpty ? [$0.productID] : $0.entitlements) },
                uniquingKeysWith: { first, _ in first }))
    }
}
