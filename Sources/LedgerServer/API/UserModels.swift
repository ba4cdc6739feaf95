import LedgerDomain
import LedgerStore

// The JSON shapes of the user endpoints (wire names, see APIModels.swift).

struct SubscriptionBody: Encodable {
    var original_transaction_id: String
    var product_id: Nullable<String>
    var subscription_group: Nullable<String>
    var status: String
    var is_entitled: Bool
    var expires_at: Nullable<String>
    var auto_renew: Nullable<Bool>
    var environment: Nullable<String>

    init(_ s: SubscriptionStatus, at instant: Instant) {
        original_transaction_id = s.originalTransactionID
        product_id = Nullable(s.productID)
        subscription_group = Nullable(s.subscriptionGroupID)
        status = Self.name(s.state)
        is_entitled = s.isEntitled(at: instant)
        expires_at = Nullable(s.accessEndsAt.map(rfc3339))
        auto_renew = Nullable(s.autoRenew?.value)
        environment = Nullable(s.environment?.rawValue)
    }

    static func name(_ state: SubscriptionState?) -> String {
        switch state {
        case .active?: "active"
        case .inGracePeriod?: "grace_period"
        case .inBillingRetry?: "billing_retry"
        case .expired?: "expired"
        case .revoked?: "revoked"
        case .refunded?: "refunded"
        case nil: "unknown"
        }
    }
}

struct EntitlementBody: Encodable {
    var id: String
    var is_active: Bool
    var expires_at: Nullable<String>
    var product_id: String

    init(_ e: Entitlement) {
        id = e.entitlementID
        is_active = e.isActive
        expires_at = Nullable(e.expiresAt.map(rfc3339))
        product_id = e.grantingProductID
    }

    static func list(_ entitlements: [String: Entitlement]) -> [EntitlementBody] {
        entitlements.keys.sorted().compactMap { entitlements[$0].map(EntitlementBody.init) }
    }
}

struct PurchaseBody: Encodable {
    var original_transaction_id: String
    var transaction_id: String
    var product_id: String
    var type: String
    var purchased_at: String
    var expires_at: Nullable<String>
    var is_active: Bool
    var consumed_at: Nullable<String>
    var refunded: Bool
    var environment: String

    init?(_ record: PurchaseRecord, at instant: Instant) {
        guard let d = record.details else { return nil }
        original_transaction_id = record.originalTransactionID
        transaction_id = d.transactionID
        product_id = d.productID
        type = d.productType.apiName
        purchased_at = rfc3339(d.purchasedAt)
        expires_at = Nullable(d.expiresAt.map(rfc3339))
        is_active = record.isActive(at: instant)
        consumed_at = Nullable(record.consumedAt.map(rfc3339))
        refunded = record.isWithdrawn
        environment = d.environment.rawValue
    }
}

struct UnconsumedBody: Encodable {
    var original_transaction_id: String
    var transaction_id: String
    var product_id: String
    var purchased_at: String
    var quantity: Int
    var developer_payload: Nullable<String>

    init(_ u: UnconsumedPurchase) {
        original_transaction_id = u.originalTransactionID
        transaction_id = u.transactionID
        product_id = u.productID
        purchased_at = rfc3339(u.purchasedAt)
        quantity = u.quantity
        developer_payload = Nullable(u.developerPayload)
    }
}

struct ProductStatusBody: Encodable {
    var id: String
    var status: String

    /// The products status the seed's `/productsStatus` lists: every product the user ever bought, sorted by id.
    /// When the app has a catalog, only products in it (the seed's "products of the app"); an app that
    /// configured no products sees everything, so it works before it is configured.
    static func list(_ status: [String: ProductStatus], catalog: [ProductRecord]) -> [ProductStatusBody] {
        let known = Set(catalog.map(\.productID))
        return status.keys.sorted()
            .filter { known.isEmpty || known.contains($0) }
            .compactMap { id in status[id].map { ProductStatusBody(id: id, status: $0.rawValue) } }
    }
}

struct UserBody: Encodable {
    var app_user_id: String
    var subscriptions: [SubscriptionBody]
    var entitlements: [EntitlementBody]
    var one_time_purchases: [PurchaseBody]
    var unconsumed: [UnconsumedBody]
    var products_status: [ProductStatusBody]
}
