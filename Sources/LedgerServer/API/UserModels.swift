import LedgerDomain
import LedgerStore

// The JSON shapes of the user endpoints (wire names, see APIModels.swift).

struct SubscriptionBody: Encodable {
    var original_transaction_id: String
    var product_id: Nullable<String>
    var subscription_group: Nullable<String>
    /// Judged against the clock at read time (see `SubscriptionStatus.state(at:)`).
    var status: String
    /// Why it expired, for `status == "expired"`.
    var expiration_reason: Nullable<String>
    var is_entitled: Bool
    var expires_at: Nullable<String>
    var grace_period_expires_at: Nullable<String>
    var auto_renew: Nullable<Bool>
    /// The product of the next period when a downgrade or crossgrade is pending.
    var next_product_id: Nullable<String>
    /// `pending` (the customer has not answered a price increase that needs consent) or `accepted`.
    var price_increase: Nullable<String>
    /// The offer of the latest transaction.
    var offer: Nullable<OfferBody>
    var environment: Nullable<String>
    var family_shared: Bool
    var latest_transaction_id: Nullable<String>
    var app_transaction_id: Nullable<String>
    var billing_plan_type: Nullable<String>
    var commitment: Nullable<CommitmentBody>

    init(_ s: SubscriptionStatus, at instant: Instant) {
        let state = s.state(at: instant)
        let latest = s.latestTransaction?.value
        original_transaction_id = s.originalTransactionID
        product_id = Nullable(s.productID)
        subscription_group = Nullable(s.subscriptionGroupID)
        status = Self.name(state)
        if case .expired(let reason)? = state { expiration_reason = Nullable(Self.name(reason)) } else { expiration_reason = Nullable(nil) }
        is_entitled = s.isEntitled(at: instant)
        expires_at = Nullable(s.accessEndsAt.map(\.rfc3339))
        grace_period_expires_at = Nullable(s.graceExpiresAt.map(\.rfc3339))
        auto_renew = Nullable(s.autoRenew?.value)
        next_product_id = Nullable(s.nextProductID)
        price_increase = Nullable(s.priceIncrease?.value.rawValue)
        offer = Nullable(s.offerInEffect.map(OfferBody.init))
        environment = Nullable(s.environment?.rawValue)
        family_shared = s.familyShared
        latest_transaction_id = Nullable(s.latestTransactionID)
        app_transaction_id = Nullable(latest?.appTransactionID)
        billing_plan_type = Nullable(latest?.billingPlanType)
        commitment = Nullable(latest?.commitment.map(CommitmentBody.init))
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

    static func name(_ reason: ExpiryReason) -> String {
        switch reason {
        case .voluntary: "voluntary"
        case .billingError: "billing_error"
        case .priceIncreaseDeclined: "price_increase_declined"
        case .productUnavailable: "product_unavailable"
        case .lapsed: "lapsed"
        case .other(let raw): raw
        }
    }
}

struct OfferBody: Encodable {
    /// `introductory`, `promotional`, `offer_code` or `win_back`.
    var type: String
    var identifier: Nullable<String>
    /// Apple's `offerDiscountType` verbatim: `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`.
    var payment_mode: Nullable<String>
    /// ISO 8601 duration, e.g. `P1M`.
    var period: Nullable<String>

    init(_ offer: Offer) {
        type = switch offer.type {
        case .introductory: "introductory"
        case .promotional: "promotional"
        case .offerCode: "offer_code"
        case .winBack: "win_back"
        }
        identifier = Nullable(offer.identifier)
        payment_mode = Nullable(offer.paymentMode)
        period = Nullable(offer.period)
    }
}

struct CommitmentBody: Encodable {
    var billing_period_number: Nullable<Int>
    var total_billing_periods: Nullable<Int>
    var expires_at: Nullable<String>
    var price_after_milliunits: Nullable<Int64>
    var currency: Nullable<String>

    init(_ c: Commitment) {
        billing_period_number = Nullable(c.billingPeriodNumber)
        total_billing_periods = Nullable(c.totalBillingPeriods)
        expires_at = Nullable(c.expiresAt.map(\.rfc3339))
        price_after_milliunits = Nullable(c.priceAfter?.milliunits)
        currency = Nullable(c.priceAfter?.currency)
    }
}

/// Whether the user may still get an introductory offer in a subscription group.
struct IntroOfferEligibilityBody: Encodable {
    var subscription_group: String
    var eligible: Bool

    /// Every group of the catalog and every group the user subscribed in. A subscription counts in its App Store
    /// group (`subscriptionGroupIdentifier`) and in its product's catalog group, so a catalog that names groups
    /// its own way (`main`) still sees the user's history.
    static func list(_ snapshot: UserSnapshot, subscriptions: [SubscriptionStatus], catalog: [ProductRecord]) -> [IntroOfferEligibilityBody] {
        var catalogGroup: [String: String] = [:]
        for product in catalog { if let group = product.subscriptionGroup { catalogGroup[product.productID] = group } }
        var used = Set(snapshot.introOfferIneligibleGroups)
        for s in subscriptions where s.isKnown && s.ownerUserID == snapshot.appUserID {
            for product in s.productsEverPurchased { if let group = catalogGroup[product] { used.insert(group) } }
        }
        let groups = used.union(catalogGroup.values)
        return groups.sorted().map { IntroOfferEligibilityBody(subscription_group: $0, eligible: !used.contains($0)) }
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
        expires_at = Nullable(e.expiresAt.map(\.rfc3339))
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
        purchased_at = d.purchasedAt.rfc3339
        expires_at = Nullable(d.expiresAt.map(\.rfc3339))
        is_active = record.isActive(at: instant)
        consumed_at = Nullable(record.consumedAt.map(\.rfc3339))
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
        purchased_at = u.purchasedAt.rfc3339
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
    var intro_offer_eligibility: [IntroOfferEligibilityBody]
}
