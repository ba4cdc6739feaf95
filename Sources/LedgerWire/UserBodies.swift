import LedgerDomain
import LedgerStore
import LedgerTenancy
import UTCTime

// The JSON shapes of a user's purchases and state, as the user endpoints, the live streams and the webhook payloads
// send them: one shape for all three. Swift names are camelCase; each type's `CodingKeys` spells the wire names
// (snake_case). `openapi.json` describes the same shapes.

package struct SubscriptionBody: Encodable {
    var originalTransactionID: String
    var productID: Nullable<String>
    var subscriptionGroup: Nullable<String>
    /// Judged against the clock at read time (see `SubscriptionSummary.state(at:)`).
    var status: String
    /// Why it expired, for `status == "expired"`.
    var expirationReason: Nullable<String>
    var isEntitled: Bool
    var expiresAt: Nullable<String>
    var gracePeriodExpiresAt: Nullable<String>
    var autoRenew: Nullable<Bool>
    /// The product of the next period when a downgrade or crossgrade is pending.
    var nextProductID: Nullable<String>
    /// `pending` (the customer has not answered a price increase that needs consent) or `accepted`.
    var priceIncrease: Nullable<String>
    /// The offer of the latest transaction.
    var offer: Nullable<OfferBody>
    var environment: Nullable<String>
    var familyShared: Bool
    var latestTransactionID: Nullable<String>
    var appTransactionID: Nullable<String>
    var billingPlanType: Nullable<String>
    var commitment: Nullable<CommitmentBody>

    enum CodingKeys: String, CodingKey {
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
        case offer
        case environment
        case familyShared = "family_shared"
        case latestTransactionID = "latest_transaction_id"
        case appTransactionID = "app_transaction_id"
        case billingPlanType = "billing_plan_type"
        case commitment
    }
}

extension SubscriptionBody {
    package init(_ s: SubscriptionSummary, at instant: Instant) {
        let state = s.state(at: instant)
        originalTransactionID = s.originalTransactionID
        productID = Nullable(s.productID)
        subscriptionGroup = Nullable(s.subscriptionGroupID)
        status = Self.name(state)
        if case .expired(let reason)? = state { expirationReason = Nullable(Self.name(reason)) } else { expirationReason = Nullable(nil) }
        isEntitled = s.isEntitled(at: instant)
        expiresAt = Nullable(s.accessEndsAt.map(\.rfc3339))
        gracePeriodExpiresAt = Nullable(s.graceExpiresAt.map(\.rfc3339))
        autoRenew = Nullable(s.autoRenew)
        nextProductID = Nullable(s.nextProductID)
        priceIncrease = Nullable(s.priceIncrease?.rawValue)
        offer = Nullable(s.offer.map(OfferBody.init))
        environment = Nullable(s.environment?.rawValue)
        familyShared = s.familyShared
        latestTransactionID = Nullable(s.latestTransactionID)
        appTransactionID = Nullable(s.appTransactionID)
        billingPlanType = Nullable(s.billingPlanType)
        commitment = Nullable(s.commitment.map(CommitmentBody.init))
    }

    package static func name(_ state: SubscriptionState?) -> String {
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

    package static func name(_ reason: ExpiryReason) -> String {
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

package struct OfferBody: Encodable {
    /// `introductory`, `promotional`, `offer_code` or `win_back`.
    var type: String
    var identifier: Nullable<String>
    /// Apple's `offerDiscountType` verbatim: `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`.
    var paymentMode: Nullable<String>
    /// ISO 8601 duration, e.g. `P1M`.
    var period: Nullable<String>

    enum CodingKeys: String, CodingKey {
        case type
        case identifier
        case paymentMode = "payment_mode"
        case period
    }
}

extension OfferBody {
    package init(_ offer: Offer) {
        type =
            switch offer.type {
            case .introductory: "introductory"
            case .promotional: "promotional"
            case .offerCode: "offer_code"
            case .winBack: "win_back"
            }
        identifier = Nullable(offer.identifier)
        paymentMode = Nullable(offer.paymentMode)
        period = Nullable(offer.period)
    }
}

package struct CommitmentBody: Encodable {
    var billingPeriodNumber: Nullable<Int>
    var totalBillingPeriods: Nullable<Int>
    var expiresAt: Nullable<String>
    var priceAfterMilliunits: Nullable<Int64>
    var currency: Nullable<String>

    enum CodingKeys: String, CodingKey {
        case billingPeriodNumber = "billing_period_number"
        case totalBillingPeriods = "total_billing_periods"
        case expiresAt = "expires_at"
        case priceAfterMilliunits = "price_after_milliunits"
        case currency
    }
}

extension CommitmentBody {
    package init(_ c: Commitment) {
        billingPeriodNumber = Nullable(c.billingPeriodNumber)
        totalBillingPeriods = Nullable(c.totalBillingPeriods)
        expiresAt = Nullable(c.expiresAt.map(\.rfc3339))
        priceAfterMilliunits = Nullable(c.priceAfter?.milliunits)
        currency = Nullable(c.priceAfter?.currency)
    }
}

/// Whether the user may still get an introductory offer in a subscription group.
package struct IntroOfferEligibilityBody: Encodable {
    var subscriptionGroup: String
    var eligible: Bool

    enum CodingKeys: String, CodingKey {
        case subscriptionGroup = "subscription_group"
        case eligible
    }

    /// `IntroOfferEligibility.byGroup` over the app's catalog.
    package static func list(_ user: UserView, catalog: [ProductRecord]) -> [IntroOfferEligibilityBody] {
        let groups = Dictionary(
            catalog.compactMap { product in product.subscriptionGroup.map { (product.productID, $0) } },
            uniquingKeysWith: { first, _ in first })
        return IntroOfferEligibility.byGroup(user, catalogGroups: groups).map { .init(subscriptionGroup: $0.group, eligible: $0.eligible) }
    }
}

package struct EntitlementBody: Encodable {
    var id: String
    var isActive: Bool
    var expiresAt: Nullable<String>
    var productID: String

    enum CodingKeys: String, CodingKey {
        case id
        case isActive = "is_active"
        case expiresAt = "expires_at"
        case productID = "product_id"
    }
}

extension EntitlementBody {
    package init(_ e: Entitlement) {
        id = e.entitlementID
        isActive = e.isActive
        expiresAt = Nullable(e.expiresAt.map(\.rfc3339))
        productID = e.grantingProductID
    }

    package static func list(_ entitlements: [String: Entitlement]) -> [EntitlementBody] {
        entitlements.keys.sorted().compactMap { entitlements[$0].map(EntitlementBody.init) }
    }
}

package struct PurchaseBody: Encodable {
    var originalTransactionID: String
    var transactionID: String
    var productID: String
    var type: String
    var purchasedAt: String
    var expiresAt: Nullable<String>
    var isActive: Bool
    var consumedAt: Nullable<String>
    var refunded: Bool
    var environment: String

    enum CodingKeys: String, CodingKey {
        case originalTransactionID = "original_transaction_id"
        case transactionID = "transaction_id"
        case productID = "product_id"
        case type
        case purchasedAt = "purchased_at"
        case expiresAt = "expires_at"
        case isActive = "is_active"
        case consumedAt = "consumed_at"
        case refunded
        case environment
    }
}

extension PurchaseBody {
    package init?(_ record: PurchaseSummary, at instant: Instant) {
        guard let d = record.details else { return nil }
        originalTransactionID = record.originalTransactionID
        transactionID = d.transactionID
        productID = d.productID
        type = d.productType.apiName
        purchasedAt = d.purchasedAt.rfc3339
        expiresAt = Nullable(d.expiresAt.map(\.rfc3339))
        isActive = record.isActive(at: instant)
        consumedAt = Nullable(record.consumedAt.map(\.rfc3339))
        refunded = record.isWithdrawn
        environment = d.environment.rawValue
    }
}

package struct UnconsumedBody: Encodable {
    var originalTransactionID: String
    var transactionID: String
    var productID: String
    var purchasedAt: String
    var quantity: Int
    var developerPayload: Nullable<String>

    enum CodingKeys: String, CodingKey {
        case originalTransactionID = "original_transaction_id"
        case transactionID = "transaction_id"
        case productID = "product_id"
        case purchasedAt = "purchased_at"
        case quantity
        case developerPayload = "developer_payload"
    }
}

extension UnconsumedBody {
    package init(_ u: UnconsumedPurchase) {
        originalTransactionID = u.originalTransactionID
        transactionID = u.transactionID
        productID = u.productID
        purchasedAt = u.purchasedAt.rfc3339
        quantity = u.quantity
        developerPayload = Nullable(u.developerPayload)
    }
}

package struct ProductStatusBody: Encodable {
    var id: String
    var status: String

    enum CodingKeys: String, CodingKey {
        case id
        case status
    }

    /// The products status the seed's `/productsStatus` lists: every product the user ever bought, sorted by id.
    /// When the app has a catalog, only products in it (the seed's "products of the app"); an app that
    /// configured no products sees everything, so it works before it is configured.
    package static func list(_ status: [String: ProductStatus], catalog: [ProductRecord]) -> [ProductStatusBody] {
        let known = Set(catalog.map(\.productID))
        return status.keys.sorted()
            .filter { known.isEmpty || known.contains($0) }
            .compactMap { id in status[id].map { ProductStatusBody(id: id, status: $0.rawValue) } }
    }
}

/// A support grant as the user answers and the grant routes show it. The reason and the operator stay in the
/// user's timeline (the app reading its own user does not see who at support gave what).
package struct GrantBody: Encodable {
    var grantID: String
    var entitlementID: String
    var grantedAt: String
    var expiresAt: String
    var revokedAt: Nullable<String>
    var isActive: Bool

    enum CodingKeys: String, CodingKey {
        case grantID = "grant_id"
        case entitlementID = "entitlement_id"
        case grantedAt = "granted_at"
        case expiresAt = "expires_at"
        case revokedAt = "revoked_at"
        case isActive = "is_active"
    }
}

extension GrantBody {
    package init(_ grant: GrantSummary, at instant: Instant) {
        (grantID, entitlementID) = (grant.grantID, grant.entitlementID)
        (grantedAt, expiresAt, revokedAt) = (grant.grantedAt.rfc3339, grant.expiresAt.rfc3339, Nullable(grant.revokedAt.map(\.rfc3339)))
        isActive = grant.isActive(at: instant)
    }
}
