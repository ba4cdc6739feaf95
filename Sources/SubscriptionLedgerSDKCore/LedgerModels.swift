import Foundation

/// A product's status for the user, as the seed API defines it.
public struct ProductStatus: Sendable, Equatable, Hashable, Codable {
    public var id: String
    /// `active` or `inactive`.
    public var status: String
    public var isActive: Bool { status == "active" }

    public init(id: String, status: String) {
        self.id = id
        self.status = status
    }
}

/// An entitlement (a feature the app unlocks), active or not.
public struct Entitlement: Sendable, Equatable, Codable {
    public var id: String
    public var isActive: Bool
    /// RFC 3339; nil when it does not expire.
    public var expiresAt: String?
    public var productID: String?
    public var expiresDate: Date? { expiresAt.flatMap(LedgerDates.parse) }

    enum CodingKeys: String, CodingKey {
        case id
        case isActive = "is_active"
        case expiresAt = "expires_at"
        case productID = "product_id"
    }
}

/// An auto-renewable subscription of the user (`activatedSubscriptions()` returns the entitled ones).
public struct Subscription: Sendable, Equatable, Codable {
    public var originalTransactionID: String
    public var productID: String?
    public var subscriptionGroup: String?
    /// `active`, `grace_period`, `billing_retry`, `expired`, `revoked`, `refunded` or `unknown`.
    public var status: String
    public var isEntitled: Bool
    public var expiresAt: String?
    public var autoRenew: Bool?
    public var environment: String?

    enum CodingKeys: String, CodingKey {
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case subscriptionGroup = "subscription_group"
        case status
        case isEntitled = "is_entitled"
        case expiresAt = "expires_at"
        case autoRenew = "auto_renew"
        case environment
    }
}

/// A consumable bought and not consumed yet: deliver it, then `consume(transactionID:)`.
public struct UnconsumedPurchase: Sendable, Equatable, Codable {
    public var originalTransactionID: String
    public var transactionID: String
    public var productID: String?
    public var purchasedAt: String?
    public var quantity: Int?
    public var developerPayload: String?

    enum CodingKeys: String, CodingKey {
        case originalTransactionID = "original_transaction_id"
        case transactionID = "transaction_id"
        case productID = "product_id"
        case purchasedAt = "purchased_at"
        case quantity
        case developerPayload = "developer_payload"
    }
}

/// `GET /v1/users/{id}`: the parts the SDK uses.
public struct UserState: Sendable, Equatable, Codable {
    public var appUserID: String
    /// False when the ledger holds no purchase of this user (empty lists: a user who never purchased, or a mistyped
    /// id); nil from a ledger older than this member.
    public var known: Bool?
    public var subscriptions: [Subscription]
    public var entitlements: [Entitlement]
    public var unconsumed: [UnconsumedPurchase]
    public var productsStatus: [ProductStatus]

    enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case known
        case subscriptions, entitlements, unconsumed
        case productsStatus = "products_status"
    }
}

/// The state the live stream sends (`LiveState`).
struct LiveState: Sendable, Equatable, Codable {
    var appUserID: String
    var entitlements: [Entitlement]
    var productsStatus: [ProductStatus]

    enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case entitlements
        case productsStatus = "products_status"
    }
}

/// What the SDK knows of the user: published on every change, cached on disk for offline starts.
public struct LedgerStatus: Sendable, Equatable, Codable {
    public var userID: String
    public var products: [ProductStatus]
    public var entitlements: [Entitlement]
    /// The live stream's cursor of this state, when it came from the stream.
    public var cursor: String?
    /// When the ledger said so (for a cached status: how old it is).
    public var receivedAt: Date
    /// True for a status read from the disk cache at start, not confirmed by the ledger yet.
    public var isCached: Bool

    public init(
        userID: String, products: [ProductStatus], entitlements: [Entitlement], cursor: String? = nil,
        receivedAt: Date = Date(), isCached: Bool = false
    ) {
        self.userID = userID
        self.products = products
        self.entitlements = entitlements
        self.cursor = cursor
        self.receivedAt = receivedAt
        self.isCached = isCached
    }

    /// The active entitlements' ids.
    public var activeEntitlements: Set<String> { Set(entitlements.filter(\.isActive).map(\.id)) }

    /// The same facts (ignoring when and how they were received).
    func sameFacts(as other: LedgerStatus) -> Bool {
        userID == other.userID && products.sorted { $0.id < $1.id } == other.products.sorted { $0.id < $1.id }
            && entitlements.sorted { $0.id < $1.id } == other.entitlements.sorted { $0.id < $1.id }
    }
}

/// `POST /uploadReceipt`'s answer.
public struct UploadReceiptResult: Sendable, Equatable, Codable {
    public var userID: String
    public var recorded: Int
    public var alreadyKnown: Int

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case recorded
        case alreadyKnown = "already_known"
    }
}

/// `POST /v1/users/{id}/transactions`'s answer.
public struct RecordResult: Sendable, Equatable, Codable {
    public var appUserID: String
    public var recorded: Int
    public var alreadyKnown: Int

    enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case recorded
        case alreadyKnown = "already_known"
    }
}

/// `POST /v1/users/{id}/restore`'s answer.
public struct RestoreResult: Sendable, Equatable, Codable {
    public var appUserID: String
    /// The original transaction ids now attributed to the user.
    public var restored: [String]
    public var eventsAppended: Int

    enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case restored
        case eventsAppended = "events_appended"
    }
}

/// `POST /v1/users/{id}/purchases/{transaction_id}/consume`'s answer.
public struct ConsumeResult: Sendable, Equatable, Codable {
    public var originalTransactionID: String
    public var consumedAt: String

    enum CodingKeys: String, CodingKey {
        case originalTransactionID = "original_transaction_id"
        case consumedAt = "consumed_at"
    }
}

/// `POST /v1/users/{id}/consumption-consent`'s answer: the consent the ledger recorded for the user.
public struct ConsumptionConsentResult: Sendable, Equatable, Codable {
    public var appUserID: String
    public var consented: Bool
    /// `app` (recorded with the public key, as the SDK does) or `backend` (the secret key).
    public var source: String
    public var recordedAt: String

    enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case consented
        case source
        case recordedAt = "recorded_at"
    }
}

/// RFC 3339 with or without fractional seconds.
enum LedgerDates {
    static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
