import UTCTime

/// Where a one-time purchase came from.
public enum PurchaseSource: Sendable, Hashable, Codable {
    case appStore
    /// Paid outside the App Store; the provider name, e.g. "paylike".
    case external(provider: String)
}

/// One purchase that is not an App Store auto-renewable subscription, keyed by original transaction id (the
/// provider's payment id for external purchases): consumables, non-consumables, non-renewing subscriptions and
/// every external purchase. Basis of unconsumed purchases, products status and entitlements.
public struct PurchaseRecord: Sendable, Codable, Equatable {
    public var originalTransactionID: String
    /// The purchase itself, once seen (freshest signed copy wins).
    public var purchase: Register<Details>?
    public var owner: OwnerClaim?
    /// When the developer consumed it (earliest consumption wins; consuming is idempotent).
    public var consumedAt: Instant?
    /// Refund / revocation standing of the purchase.
    public var standing: Register<TransactionStanding>?

    /// What the purchase was.
    public struct Details: Sendable, Codable, Hashable {
        public var productID: String
        public var productType: ProductType
        public var transactionID: String
        public var purchasedAt: Instant
        public var expiresAt: Instant?
        public var environment: StoreEnvironment
        public var price: Money?
        public var developerPayload: String?
        public var familyShared: Bool
        public var quantity: Int
        public var source: PurchaseSource

        public init(
            productID: String, productType: ProductType, transactionID: String, purchasedAt: Instant,
            expiresAt: Instant? = nil, environment: StoreEnvironment, price: Money? = nil,
            developerPayload: String? = nil, familyShared: Bool = false, quantity: Int = 1,
            source: PurchaseSource = .appStore
        ) {
            self.productID = productID
            self.productType = productType
            self.transactionID = transactionID
            self.purchasedAt = purchasedAt
            self.expiresAt = expiresAt
            self.environment = environment
            self.price = price
            self.developerPayload = developerPayload
            self.familyShared = familyShared
            self.quantity = quantity
            self.source = source
        }
    }

    /// Nothing known yet.
    public init(originalTransactionID: String) {
        self.originalTransactionID = originalTransactionID
    }

    public var isKnown: Bool { purchase != nil }
    public var details: Details? { purchase?.value }
    public var ownerUserID: String? { owner?.appUserID }
    public var isConsumed: Bool { consumedAt != nil }
    /// See `PurchaseSummary.isWithdrawn`.
    public var isWithdrawn: Bool { summary.isWithdrawn }
    /// See `PurchaseSummary.isActive(at:)`.
    public func isActive(at instant: Instant) -> Bool { summary.isActive(at: instant) }
}

/// Reducer of `PurchaseRecord`, keyed by original transaction id. Table / checkpoint name `purchases`.
public enum PurchaseRecordReducer: ProjectionReducer {
    public typealias State = PurchaseRecord

    public static let name = "purchases"

    public static func keys(for event: DomainEvent) -> [String] {
        switch event.event {
        case .subscriptionStarted, .subscriptionRenewed, .billingRecovered, .billingFailed, .gracePeriodExpired,
            .subscriptionExpired, .autoRenewChanged, .renewalPreferenceChanged, .priceIncrease, .renewalExtended,
            .refundDeclined, .consumptionRequested, .consumptionInformationSent, .consumptionAnswerWithheld, .consumptionConsentRecorded, .grantGiven,
            .grantRevoked,
            .appStoreNotification:
            return []
        case .purchaseConsumable, .purchaseNonConsumable, .purchaseNonRenewing, .externalPurchase, .consumed,
            .refunded, .refundReversed, .revoked, .linked, .transferred:
            return uniqueSorted(event.event.originalTransactionIDs)
        }
    }

    public static func initial(key: String) -> PurchaseRecord {
        PurchaseRecord(originalTransactionID: key)
    }

    public static func apply(_ s: inout PurchaseRecord, _ event: DomainEvent) {
        s.owner = OwnerClaim.merge(s.owner, event.event.ownerClaim)
        switch event.event {
        case .subscriptionStarted, .subscriptionRenewed, .billingRecovered, .billingFailed, .gracePeriodExpired,
            .subscriptionExpired, .autoRenewChanged, .renewalPreferenceChanged, .priceIncrease, .renewalExtended,
            .refundDeclined, .consumptionRequested, .consumptionInformationSent, .consumptionAnswerWithheld, .consumptionConsentRecorded, .grantGiven,
            .grantRevoked,
            .appStoreNotification, .linked, .transferred:
            break
        case .purchaseConsumable(let p): s.record(p.transaction, .consumable)
        case .purchaseNonConsumable(let p): s.record(p.transaction, .nonConsumable)
        case .purchaseNonRenewing(let p): s.record(p.transaction, .nonRenewing)
        case .externalPurchase(let p):
            let details = PurchaseRecord.Details(
                productID: p.productID, productType: p.productType, transactionID: p.paymentID,
                purchasedAt: p.purchasedAt, expiresAt: p.expiresDate, environment: p.environment, price: p.price,
                developerPayload: p.developerPayload, source: .external(provider: p.provider))
            s.purchase = .merge(s.purchase, details, Stamp(at: p.purchasedAt, tie: p.paymentID))
        case .consumed(let c):
            s.consumedAt = s.consumedAt.map { min($0, c.consumedAt) } ?? c.consumedAt
        case .refunded(let e):
            s.standing = .merge(s.standing, .refunded, Stamp(at: e.subscription.signedDate, rank: 1, tie: "refunded"))
        case .revoked(let e):
            s.standing = .merge(s.standing, .revoked, Stamp(at: e.subscription.signedDate, rank: 1, tie: "revoked"))
        case .refundReversed(let e):
            s.standing = .merge(s.standing, .valid, Stamp(at: e.subscription.signedDate, rank: 2, tie: "valid"))
        }
    }
}

extension PurchaseRecord {
    mutating func record(_ t: TransactionFacts, _ type: ProductType) {
        let details = Details(
            productID: t.productID, productType: type, transactionID: t.transactionID, purchasedAt: t.purchaseDate,
            expiresAt: t.expiresDate, environment: t.environment, price: t.price,
            developerPayload: t.developerPayload, familyShared: t.familyShared, quantity: t.quantity)
        purchase = .merge(purchase, details, Stamp(at: t.purchaseDate, tie: t.transactionID + "|" + paddedMicros(t.signedDate)))
    }
}
