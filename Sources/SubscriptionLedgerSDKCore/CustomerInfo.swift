import Foundation

/// Everything the ledger knows of the customer, at one instant: what they are entitled to, their subscriptions,
/// one-time and unconsumed purchases, and whether they may still get an introductory offer. One snapshot for every
/// question an app asks; `PurchaseManager.customerInfoUpdates()` sends a new one on every change.
public struct CustomerInfo: Sendable, Equatable {
    /// Where a snapshot comes from.
    public enum Source: Sendable, Equatable {
        /// The ledger's answer just now.
        case ledger
        /// The last snapshot the ledger signed, kept on the device and judged again at the device's clock (no network,
        /// or before the ledger answered at start). Entitlements past their own expiry read inactive.
        case offline
    }

    /// The app's id of the user (the ledger's `anon-…` id for an anonymous one).
    public var userID: String
    /// False when the ledger holds no purchase or grant of this user.
    public var isKnown: Bool
    /// Every entitlement the user has or had, by id order.
    public var entitlements: [EntitlementInfo]
    public var subscriptions: [SubscriptionInfo]
    public var oneTimePurchases: [OneTimePurchase]
    /// Consumables bought and not consumed yet: deliver them, then `PurchaseManager.consume(transactionID:)`.
    public var unconsumedPurchases: [UnconsumedPurchase]
    /// The seed API's products and their status.
    public var productsStatus: [ProductStatus]
    /// Whether the user may still get an introductory offer, by subscription group.
    public var introOfferEligibility: [String: Bool]
    /// When the ledger issued the snapshot (its clock).
    public var issuedAt: Date
    public var source: Source

    /// The ids of the entitlements active now.
    public var activeEntitlements: Set<String> { Set(entitlements.filter(\.isActive).map(\.id)) }

    /// Whether `entitlement` is active now.
    public func isEntitled(to entitlement: String) -> Bool { activeEntitlements.contains(entitlement) }

    /// The subscriptions that entitle the user now (active, or in a grace period).
    public var activeSubscriptions: [SubscriptionInfo] { subscriptions.filter(\.isEntitled) }

    /// Whether the user may get the introductory offer of `group` (true for a group the ledger has not seen them in).
    public func isEligibleForIntroOffer(inGroup group: String) -> Bool { introOfferEligibility[group] ?? true }

    public init(
        userID: String, isKnown: Bool = true, entitlements: [EntitlementInfo] = [], subscriptions: [SubscriptionInfo] = [],
        oneTimePurchases: [OneTimePurchase] = [], unconsumedPurchases: [UnconsumedPurchase] = [], productsStatus: [ProductStatus] = [],
        introOfferEligibility: [String: Bool] = [:], issuedAt: Date = Date(), source: Source = .ledger
    ) {
        self.userID = userID
        self.isKnown = isKnown
        self.entitlements = entitlements
        self.subscriptions = subscriptions
        self.oneTimePurchases = oneTimePurchases
        self.unconsumedPurchases = unconsumedPurchases
        self.productsStatus = productsStatus
        self.introOfferEligibility = introOfferEligibility
        self.issuedAt = issuedAt
        self.source = source
    }

    /// Whether the snapshot holds the purchase of `transactionID` (as its original or latest transaction).
    func includes(transactionID: String) -> Bool {
        subscriptions.contains { $0.originalTransactionID == transactionID || $0.latestTransactionID == transactionID }
            || oneTimePurchases.contains { $0.transactionID == transactionID || $0.originalTransactionID == transactionID }
            || unconsumedPurchases.contains { $0.transactionID == transactionID }
    }

    /// The same facts (ignoring when and how they were received).
    func sameFacts(as other: CustomerInfo) -> Bool {
        var (mine, theirs) = (self, other)
        (mine.issuedAt, theirs.issuedAt) = (.distantPast, .distantPast)
        (mine.source, theirs.source) = (.ledger, .ledger)
        return mine == theirs
    }
}

/// A feature the app unlocks.
public struct EntitlementInfo: Sendable, Equatable, Hashable {
    public var id: String
    public var isActive: Bool
    /// Nil when it does not expire.
    public var expiresAt: Date?
    /// The product that grants it; `grant:<id>` for a support grant.
    public var productID: String
    /// True when a support grant gives it rather than a purchase.
    public var isGrant: Bool { productID.hasPrefix("grant:") }

    public init(id: String, isActive: Bool, expiresAt: Date?, productID: String) {
        self.id = id
        self.isActive = isActive
        self.expiresAt = expiresAt
        self.productID = productID
    }
}

/// A subscription's state, as the ledger judges it at the snapshot's instant.
public enum SubscriptionStatus: String, Sendable, Equatable, CaseIterable {
    case active
    /// Billing failed; Apple's grace period still entitles the user.
    case gracePeriod = "grace_period"
    /// Billing failed and Apple keeps trying; not entitled.
    case billingRetry = "billing_retry"
    case expired
    /// Apple revoked it (e.g. Family Sharing ended).
    case revoked
    case refunded
    /// A status this SDK does not know (a newer ledger), or the ledger has not seen the subscription's state yet.
    case unknown

    init(wire: String) { self = Self(rawValue: wire) ?? .unknown }
}

/// Why a subscription expired.
public enum ExpirationReason: Sendable, Equatable, Hashable {
    /// The customer turned auto-renew off.
    case voluntary
    case billingError
    case priceIncreaseDeclined
    case productUnavailable
    /// The expiry passed with no renewal recorded.
    case lapsed
    /// Apple's reason verbatim, when it is none of the above.
    case other(String)

    init(wire: String) {
        switch wire {
        case "voluntary": self = .voluntary
        case "billing_error": self = .billingError
        case "price_increase_declined": self = .priceIncreaseDeclined
        case "product_unavailable": self = .productUnavailable
        case "lapsed": self = .lapsed
        default: self = .other(wire)
        }
    }
}

/// The App Store environment a purchase was made in.
public enum StoreEnvironment: String, Sendable, Equatable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
    case xcode = "Xcode"
    case localTesting = "LocalTesting"
    case unknown

    init(wire: String?) { self = wire.flatMap(Self.init(rawValue:)) ?? .unknown }
}

/// The App Store's product types.
public enum ProductType: String, Sendable, Equatable, CaseIterable {
    case consumable
    case nonConsumable = "non_consumable"
    case nonRenewing = "non_renewing"
    case autoRenewable = "auto_renewable"
    case unknown

    init(wire: String) { self = Self(rawValue: wire) ?? .unknown }
}

/// An offer a subscription's latest transaction used.
public struct SubscriptionOffer: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case introductory, promotional
        case offerCode = "offer_code"
        case winBack = "win_back"
        case unknown
    }
    public var kind: Kind
    /// The promotional offer, offer code or win-back offer id (nil for introductory offers).
    public var identifier: String?
    /// Apple's `offerDiscountType`: `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`.
    public var paymentMode: String?
    /// ISO 8601 duration, e.g. `P1M`.
    public var period: String?
}

/// An auto-renewable subscription of the user.
public struct SubscriptionInfo: Sendable, Equatable {
    /// The App Store's id of the subscription (its first transaction), stable across renewals.
    public var originalTransactionID: String
    /// The product of the current period (nil before the ledger saw a transaction of it).
    public var productID: String?
    /// The App Store subscription group.
    public var subscriptionGroup: String?
    /// Judged by the ledger at the snapshot's instant (offline snapshots keep it; `isEntitled` is judged again).
    public var status: SubscriptionStatus
    /// Why it expired, when `status == .expired`.
    public var expirationReason: ExpirationReason?
    /// Whether it entitles the user now (active, or in a grace period).
    public var isEntitled: Bool
    /// The end of the current period.
    public var expiresAt: Date?
    /// The end of Apple's billing grace period, while in one.
    public var gracePeriodExpiresAt: Date?
    /// Whether it renews at `expiresAt` (nil: not reported yet).
    public var willAutoRenew: Bool?
    /// The product of the next period, when a downgrade or crossgrade is pending.
    public var nextProductID: String?
    /// The offer of the latest transaction (an introductory price, a promotional offer…).
    public var offer: SubscriptionOffer?
    public var environment: StoreEnvironment
    /// Shared by a family member's purchase (Family Sharing).
    public var isFamilyShared: Bool
    /// The newest transaction of the subscription (a renewal's, an upgrade's).
    public var latestTransactionID: String?
}

/// A one-time purchase (consumable, non-consumable or non-renewing).
public struct OneTimePurchase: Sendable, Equatable {
    public var originalTransactionID: String
    public var transactionID: String
    public var productID: String
    public var type: ProductType
    public var purchasedAt: Date
    /// The end of a non-renewing subscription; nil for the others.
    public var expiresAt: Date?
    /// Whether it gives access now: not refunded or revoked, not consumed, not past its expiry.
    public var isActive: Bool
    /// When a consumable was marked delivered (`PurchaseManager.consume(transactionID:)`).
    public var consumedAt: Date?
    /// Refunded or revoked by Apple.
    public var isRefunded: Bool
    public var environment: StoreEnvironment
}

/// A consumable bought and not consumed yet.
public struct UnconsumedPurchase: Sendable, Equatable {
    public var originalTransactionID: String
    /// What `PurchaseManager.consume(transactionID:)` takes.
    public var transactionID: String
    public var productID: String
    public var purchasedAt: Date
    /// How many units the transaction bought.
    public var quantity: Int
    /// What the app's backend attached to the purchase, if anything.
    public var developerPayload: String?
}

/// A product's status for the user, as the seed API defines it.
public struct ProductStatus: Sendable, Equatable, Hashable {
    public enum State: String, Sendable, Equatable, Hashable, CaseIterable {
        case active, inactive
    }
    /// The App Store product id.
    public var id: String
    public var status: State
    public var isActive: Bool { status == .active }

    public init(id: String, status: State) {
        self.id = id
        self.status = status
    }
}

// MARK: from the wire

extension CustomerInfo {
    /// The snapshot of a `GET /v1/users/{id}` answer the ledger issued at `issuedAt`.
    init(_ wire: Wire.UserState, issuedAt: Date, source: Source) throws(LedgerError) {
        self.init(
            userID: wire.appUserID, isKnown: wire.known ?? true,
            entitlements: try wire.entitlements.map { e throws(LedgerError) in try EntitlementInfo(e) },
            subscriptions: try wire.subscriptions.map { s throws(LedgerError) in try SubscriptionInfo(s) },
            oneTimePurchases: try wire.oneTimePurchases.map { p throws(LedgerError) in try OneTimePurchase(p) },
            unconsumedPurchases: try wire.unconsumed.map { u throws(LedgerError) in try UnconsumedPurchase(u) },
            productsStatus: try wire.productsStatus.map { p throws(LedgerError) in try ProductStatus(p) },
            introOfferEligibility: Dictionary(wire.introOfferEligibility.map { ($0.subscriptionGroup, $0.eligible) }, uniquingKeysWith: { $0 && $1 }),
            issuedAt: issuedAt, source: source)
    }

    /// This snapshot judged at `now` (a kept one, offline): whatever expired since the ledger issued it is inactive;
    /// nothing becomes active. A product stays active while something of it does.
    func judged(at now: Date) -> CustomerInfo {
        func live(_ expiry: Date?) -> Bool { expiry.map { $0 > now } ?? true }
        var info = self
        info.source = .offline
        info.entitlements = entitlements.map { e in
            var e = e
            e.isActive = e.isActive && live(e.expiresAt)
            return e
        }
        info.subscriptions = subscriptions.map { s in
            var s = s
            // A grace period entitles until its own end; otherwise the period's expiry.
            s.isEntitled = s.isEntitled && live(s.status == .gracePeriod ? (s.gracePeriodExpiresAt ?? s.expiresAt) : s.expiresAt)
            return s
        }
        info.oneTimePurchases = oneTimePurchases.map { p in
            var p = p
            p.isActive = p.isActive && live(p.expiresAt)
            return p
        }
        info.productsStatus = productsStatus.map { product in
            guard product.isActive else { return product }
            let subscriptions = info.subscriptions.filter { $0.productID == product.id }
            let purchases = info.oneTimePurchases.filter { $0.productID == product.id }
            guard !subscriptions.isEmpty || !purchases.isEmpty else { return product }
            let stillActive = subscriptions.contains(where: \.isEntitled) || purchases.contains(where: \.isActive)
            return ProductStatus(id: product.id, status: stillActive ? .active : .inactive)
        }
        return info
    }
}

extension EntitlementInfo {
    init(_ wire: Wire.Entitlement) throws(LedgerError) {
        self.init(
            id: wire.id, isActive: wire.isActive, expiresAt: try LedgerDates.optional(wire.expiresAt, "entitlement.expires_at"),
            productID: wire.productID)
    }
}

extension SubscriptionInfo {
    init(_ wire: Wire.Subscription) throws(LedgerError) {
        let status = SubscriptionStatus(wire: wire.status)
        self.init(
            originalTransactionID: wire.originalTransactionID, productID: wire.productID, subscriptionGroup: wire.subscriptionGroup,
            status: status, expirationReason: wire.expirationReason.map(ExpirationReason.init(wire:)), isEntitled: wire.isEntitled,
            expiresAt: try LedgerDates.optional(wire.expiresAt, "subscription.expires_at"),
            gracePeriodExpiresAt: try LedgerDates.optional(wire.gracePeriodExpiresAt, "subscription.grace_period_expires_at"),
            willAutoRenew: wire.autoRenew, nextProductID: wire.nextProductID,
            offer: wire.offer.map {
                SubscriptionOffer(
                    kind: .init(rawValue: $0.type) ?? .unknown, identifier: $0.identifier, paymentMode: $0.paymentMode, period: $0.period)
            },
            environment: StoreEnvironment(wire: wire.environment), isFamilyShared: wire.familyShared,
            latestTransactionID: wire.latestTransactionID)
    }
}

extension OneTimePurchase {
    init(_ wire: Wire.Purchase) throws(LedgerError) {
        self.init(
            originalTransactionID: wire.originalTransactionID, transactionID: wire.transactionID, productID: wire.productID,
            type: ProductType(wire: wire.type), purchasedAt: try LedgerDates.required(wire.purchasedAt, "purchase.purchased_at"),
            expiresAt: try LedgerDates.optional(wire.expiresAt, "purchase.expires_at"), isActive: wire.isActive,
            consumedAt: try LedgerDates.optional(wire.consumedAt, "purchase.consumed_at"), isRefunded: wire.refunded,
            environment: StoreEnvironment(wire: wire.environment))
    }
}

extension UnconsumedPurchase {
    init(_ wire: Wire.Unconsumed) throws(LedgerError) {
        self.init(
            originalTransactionID: wire.originalTransactionID, transactionID: wire.transactionID, productID: wire.productID,
            purchasedAt: try LedgerDates.required(wire.purchasedAt, "unconsumed.purchased_at"), quantity: wire.quantity,
            developerPayload: wire.developerPayload)
    }
}

extension ProductStatus {
    init(_ wire: Wire.ProductStatus) throws(LedgerError) {
        guard let state = State(rawValue: wire.status) else {
            throw .invalidResponse("product status `\(wire.status)` is neither active nor inactive")
        }
        self.init(id: wire.id, status: state)
    }
}
