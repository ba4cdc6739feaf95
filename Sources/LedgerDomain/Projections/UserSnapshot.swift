import UTCTime

/// Every per-user projection of one app user at once, as the ledger knew it at `asOf` and evaluated at `at`:
/// what `ledger replay --as-of` prints for a user and what the user endpoints answer.
public struct UserSnapshot: Sendable, Codable, Equatable {
    public var appUserID: String
    public var productsStatus: [String: ProductStatus]
    public var entitlements: [String: Entitlement]
    public var unconsumedPurchases: [UnconsumedPurchase]
    /// Original transaction ids of the subscriptions giving access at `at`.
    public var activatedSubscriptions: [String]
    /// Subscription groups the user can no longer get an introductory offer in.
    public var introOfferIneligibleGroups: [String]

    /// Computes the snapshot from per-transaction states (any owners; only the user's are used).
    public init(
        appUserID: String, subscriptions: [SubscriptionSummary], purchases: [PurchaseSummary], grants: [GrantSummary] = [],
        catalog: Catalog, at instant: Instant
    ) {
        let user = UserView(appUserID: appUserID, subscriptions: subscriptions, purchases: purchases, grants: grants)
        self.appUserID = appUserID
        self.productsStatus = ProductsStatus.compute(user, at: instant)
        self.entitlements = LedgerDomain.entitlements(user, catalog: catalog, at: instant)
        self.unconsumedPurchases = UnconsumedPurchases.list(user)
        self.activatedSubscriptions = ActivatedSubscriptions.list(user, at: instant).map(\.originalTransactionID)
        self.introOfferIneligibleGroups = IntroOfferEligibility.ineligibleGroups(user)
    }

    /// Folds the log as of `asOf` (recorded time; nil = everything) and evaluates at `at`.
    /// The snapshot of what the read models hold (any owners; only the user's are used).
    public init(appUserID: String, owned: OwnedSummaries, catalog: Catalog, at instant: Instant) {
        self.init(
            appUserID: appUserID, subscriptions: owned.subscriptions, purchases: owned.purchases, grants: owned.grants,
            catalog: catalog, at: instant)
    }

    public init(appUserID: String, events: [DomainEvent], asOf: Instant?, catalog: Catalog, at instant: Instant) {
        self.init(
            appUserID: appUserID,
            subscriptions: foldAll(SubscriptionStatusReducer.self, events: events, asOf: asOf).values.map(\.summary),
            purchases: foldAll(PurchaseRecordReducer.self, events: events, asOf: asOf).values.map(\.summary),
            grants: fold(GrantsReducer.self, key: appUserID, events: events, asOf: asOf).summaries,
            catalog: catalog, at: instant)
    }
}
