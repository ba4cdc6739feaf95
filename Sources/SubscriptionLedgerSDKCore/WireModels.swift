import Foundation

/// A wire type: its members are its `CodingKeys`, which the contract test compares with the schema's.
protocol WireModel: Decodable {
    associatedtype CodingKeys: CodingKey & CaseIterable
}

extension WireModel {
    static var members: [String] { CodingKeys.allCases.map(\.stringValue) }
}

/// The ledger's answers as they arrive (snake_case, strings for enums and instants), decoded and then turned into the
/// public types (`CustomerInfo`). Kept in step with `openapi.json` by `SDKContractTests`, which decodes every example
/// and checks every member and enum value of the schemas named in `Wire.schemas`.
enum Wire {
    /// The OpenAPI schema each wire type decodes, for the contract test.
    static var schemas: [String: any WireModel.Type] {
        [
            "UserState": UserState.self, "Subscription": Subscription.self, "Entitlement": Entitlement.self,
            "Purchase": Purchase.self, "Unconsumed": Unconsumed.self, "ProductStatus": ProductStatus.self,
            "IntroOfferEligibility": IntroOfferEligibility.self, "Grant": Grant.self, "Offer": Offer.self,
            "UploadReceiptResult": UploadReceiptResult.self, "RecordResult": RecordResult.self, "RestoreResult": RestoreResult.self,
            "ConsumeResult": ConsumeResult.self, "ConsumptionConsentResult": ConsumptionConsentResult.self,
            "ProductsStatusResponse": ProductsStatusResponse.self, "LiveState": LiveState.self, "UserUnconsumed": UserUnconsumed.self
        ]
    }

    /// `GET /v1/users/{id}`.
    struct UserState: WireModel, Equatable {
        var appUserID: String
        /// Optional, as `grants`: a ledger older than these members still answers an SDK that knows them.
        var known: Bool?
        var subscriptions: [Subscription]
        var entitlements: [Entitlement]
        var oneTimePurchases: [Purchase]
        var grants: [Grant]?
        var unconsumed: [Unconsumed]
        var productsStatus: [ProductStatus]
        var introOfferEligibility: [IntroOfferEligibility]

        enum CodingKeys: String, CodingKey, CaseIterable {
            case appUserID = "app_user_id"
            case known, subscriptions, entitlements
            case oneTimePurchases = "one_time_purchases"
            case grants, unconsumed
            case productsStatus = "products_status"
            case introOfferEligibility = "intro_offer_eligibility"
        }
    }

    struct Subscription: WireModel, Equatable {
        var originalTransactionID: String
        var productID: String?
        var subscriptionGroup: String?
        var status: String
        var expirationReason: String?
        var isEntitled: Bool
        var expiresAt: String?
        var gracePeriodExpiresAt: String?
        var autoRenew: Bool?
        var nextProductID: String?
        var priceIncrease: String?
        var offer: Offer?
        var environment: String?
        var familyShared: Bool
        var latestTransactionID: String?
        var appTransactionID: String?
        var billingPlanType: String?
        /// Not used by the SDK (the commitment of a billing plan); decoded as present.
        var commitment: Ignored?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case originalTransactionID = "original_transaction_id"
            case productID = "product_id"
            case subscriptionGroup = "subscription_group"
            case status
            case expirationReason = "expiration_reason"
            case isEntitled = "is_entitled"
            case expiresAt = "expires_at"
            case gracePeriodExpiresAt = "grace_period_expires_at"
            case autoRenew = "auto_renew"
            case nextProductID = "next_product_id"
            case priceIncrease = "price_increase"
            case offer, environment
            case familyShared = "family_shared"
            case latestTransactionID = "latest_transaction_id"
            case appTransactionID = "app_transaction_id"
            case billingPlanType = "billing_plan_type"
            case commitment
        }
    }

    /// A member the SDK does not read; any JSON value.
    struct Ignored: Decodable, Equatable {
        init(from decoder: any Decoder) throws {}
    }

    struct Offer: WireModel, Equatable {
        var type: String
        var identifier: String?
        var paymentMode: String?
        var period: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case type, identifier
            case paymentMode = "payment_mode"
            case period
        }
    }

    struct Entitlement: WireModel, Equatable {
        var id: String
        var isActive: Bool
        var expiresAt: String?
        var productID: String

        enum CodingKeys: String, CodingKey, CaseIterable {
            case id
            case isActive = "is_active"
            case expiresAt = "expires_at"
            case productID = "product_id"
        }
    }

    struct Purchase: WireModel, Equatable {
        var originalTransactionID: String
        var transactionID: String
        var productID: String
        var type: String
        var purchasedAt: String
        var expiresAt: String?
        var isActive: Bool
        var consumedAt: String?
        var refunded: Bool
        var environment: String

        enum CodingKeys: String, CodingKey, CaseIterable {
            case originalTransactionID = "original_transaction_id"
            case transactionID = "transaction_id"
            case productID = "product_id"
            case type
            case purchasedAt = "purchased_at"
            case expiresAt = "expires_at"
            case isActive = "is_active"
            case consumedAt = "consumed_at"
            case refunded, environment
        }
    }

    struct Unconsumed: WireModel, Equatable {
        var originalTransactionID: String
        var transactionID: String
        var productID: String
        var purchasedAt: String
        var quantity: Int
        var developerPayload: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case originalTransactionID = "original_transaction_id"
            case transactionID = "transaction_id"
            case productID = "product_id"
            case purchasedAt = "purchased_at"
            case quantity
            case developerPayload = "developer_payload"
        }
    }

    struct ProductStatus: WireModel, Equatable {
        var id: String
        var status: String

        enum CodingKeys: String, CodingKey, CaseIterable { case id, status }
    }

    struct IntroOfferEligibility: WireModel, Equatable {
        var subscriptionGroup: String
        var eligible: Bool

        enum CodingKeys: String, CodingKey, CaseIterable {
            case subscriptionGroup = "subscription_group"
            case eligible
        }
    }

    struct Grant: WireModel, Equatable {
        var grantID: String
        var entitlementID: String
        var grantedAt: String
        var expiresAt: String
        var revokedAt: String?
        var isActive: Bool

        enum CodingKeys: String, CodingKey, CaseIterable {
            case grantID = "grant_id"
            case entitlementID = "entitlement_id"
            case grantedAt = "granted_at"
            case expiresAt = "expires_at"
            case revokedAt = "revoked_at"
            case isActive = "is_active"
        }
    }

    /// `GET /productsStatus` (the seed's shape).
    struct ProductsStatusResponse: WireModel, Equatable {
        struct Embedded: WireModel, Equatable {
            var products: [ProductStatus]
            enum CodingKeys: String, CodingKey, CaseIterable { case products }
        }
        var embedded: Embedded

        enum CodingKeys: String, CodingKey, CaseIterable { case embedded = "_embedded" }
    }

    /// `GET /v1/users/{id}/unconsumed`.
    struct UserUnconsumed: WireModel, Equatable {
        var appUserID: String
        var known: Bool?
        var unconsumed: [Unconsumed]

        enum CodingKeys: String, CodingKey, CaseIterable {
            case appUserID = "app_user_id"
            case known, unconsumed
        }
    }

    /// What the live stream sends: the user's entitlements and products, on every change.
    struct LiveState: WireModel, Equatable {
        var appUserID: String
        var entitlements: [Entitlement]
        var productsStatus: [ProductStatus]

        enum CodingKeys: String, CodingKey, CaseIterable {
            case appUserID = "app_user_id"
            case entitlements
            case productsStatus = "products_status"
        }
    }

    /// `POST /uploadReceipt` and `POST /uploadTransactions`.
    struct UploadReceiptResult: WireModel, Equatable {
        var userID: String
        var recorded: Int
        var alreadyKnown: Int

        enum CodingKeys: String, CodingKey, CaseIterable {
            case userID = "user_id"
            case recorded
            case alreadyKnown = "already_known"
        }
    }

    /// `POST /v1/users/{id}/transactions`.
    struct RecordResult: WireModel, Equatable {
        var appUserID: String
        var recorded: Int
        var alreadyKnown: Int

        enum CodingKeys: String, CodingKey, CaseIterable {
            case appUserID = "app_user_id"
            case recorded
            case alreadyKnown = "already_known"
        }
    }

    /// `POST /v1/users/{id}/restore`.
    struct RestoreResult: WireModel, Equatable {
        var appUserID: String
        var restored: [String]
        var eventsAppended: Int

        enum CodingKeys: String, CodingKey, CaseIterable {
            case appUserID = "app_user_id"
            case restored
            case eventsAppended = "events_appended"
        }
    }

    /// `POST /v1/users/{id}/purchases/{transaction_id}/consume`.
    struct ConsumeResult: WireModel, Equatable {
        var originalTransactionID: String
        var consumedAt: String
        var position: Int64

        enum CodingKeys: String, CodingKey, CaseIterable {
            case originalTransactionID = "original_transaction_id"
            case consumedAt = "consumed_at"
            case position
        }
    }

    /// `POST /v1/users/{id}/consumption-consent`.
    struct ConsumptionConsentResult: WireModel, Equatable {
        var appUserID: String
        var consented: Bool
        var source: String
        var recordedAt: String
        var position: Int64

        enum CodingKeys: String, CodingKey, CaseIterable {
            case appUserID = "app_user_id"
            case consented, source
            case recordedAt = "recorded_at"
            case position
        }
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

    /// An instant the ledger must send well formed: a malformed one is a broken answer, not a missing date.
    static func required(_ text: String, _ member: String) throws(LedgerError) -> Date {
        guard let date = parse(text) else { throw .invalidResponse("\(member) is not an RFC 3339 instant: \(text)") }
        return date
    }

    static func optional(_ text: String?, _ member: String) throws(LedgerError) -> Date? {
        try text.map { text throws(LedgerError) in try required(text, member) }
    }
}
