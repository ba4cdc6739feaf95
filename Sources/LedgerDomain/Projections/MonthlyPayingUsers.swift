/// Whether one purchase (original transaction id) was paid for in one month, and by whom the paying event said.
public struct PayingUserMonth: Sendable, Codable, Equatable {
    /// `YYYY-MM`.
    public var month: String
    public var originalTransactionID: String
    public var paying: Bool
    /// The app user id carried by a paying event, if any (the smallest, for determinism). The owner known at
    /// query time takes precedence: see `MonthlyPayingUsersReducer.count`.
    public var appUserID: String?
    /// The smallest transaction id that made the purchase paying in the month (deterministic in any order).
    public var firstTransactionID: String?

    public init(
        month: String, originalTransactionID: String, paying: Bool, appUserID: String? = nil,
        firstTransactionID: String? = nil
    ) {
        self.month = month
        self.originalTransactionID = originalTransactionID
        self.paying = paying
        self.appUserID = appUserID
        self.firstTransactionID = firstTransactionID
    }
}

/// Monthly paying users (SPEC §5 usage, the basis of invoices): per app per calendar month (UTC), the users
/// with at least one Production purchase or renewal transaction purchased in that month. Sandbox, Xcode and
/// test payments never count; refunds do not un-count (the month's usage happened).
///
/// Keyed `"YYYY-MM|<original transaction id>"`, not by user: renewals arrive as notifications without an app
/// user id, and the subscription may be linked to its user later (or transferred). Each row stays tiny, and the
/// distinct users of a month are resolved at query time through the owners of the `subscription_status` /
/// `purchases` projections (`count(_:month:owners:)`); the projection table is per app.
public enum MonthlyPayingUsersReducer: ProjectionReducer {
    public typealias State = PayingUserMonth

    public static let name = "monthly_paying_users"

    public static func keys(for event: DomainEvent) -> [String] {
        guard let paid = payment(event.event) else { return [] }
        return ["\(CalendarMonth(containing: paid.at))|\(paid.originalTransactionID)"]
    }

    public static func initial(key: String) -> PayingUserMonth {
        let parts = key.split(separator: "|", maxSplits: 1).map(String.init)
        return PayingUserMonth(month: parts.first ?? key, originalTransactionID: parts.count > 1 ? parts[1] : "", paying: false)
    }

    public static func apply(_ state: PayingUserMonth, _ event: DomainEvent) -> PayingUserMonth {
        guard let paid = payment(event.event) else { return state }
        var s = state
        s.paying = true
        s.firstTransactionID = s.firstTransactionID.map { min($0, paid.transactionID) } ?? paid.transactionID
        if let user = paid.appUserID { s.appUserID = s.appUserID.map { min($0, user) } ?? user }
        return s
    }

    /// The distinct paying users of `month` among `states` (rows of any months).
    ///
    /// A row's user is its purchase's current owner (`owners[originalTransactionID]`, from the subscription
    /// status and purchases projections), else the app user id its paying event carried, else the purchase
    /// itself stands for an unknown user (`otx:<id>`), so it still counts once.
    public static func payingUsers(
        _ states: [PayingUserMonth], month: CalendarMonth, owners: [String: String]
    ) -> Set<String> {
        Set(states.filter { $0.paying && $0.month == month.description }.map { row in
            owners[row.originalTransactionID] ?? row.appUserID ?? "otx:\(row.originalTransactionID)"
        })
    }

    /// `payingUsers(_:month:owners:).count`.
    public static func count(_ states: [PayingUserMonth], month: CalendarMonth, owners: [String: String]) -> Int {
        payingUsers(states, month: month, owners: owners).count
    }

    /// Owners by original transaction id from the per-transaction projections, for `count`.
    public static func owners(subscriptions: [SubscriptionStatus], purchases: [PurchaseRecord]) -> [String: String] {
        var owners: [String: String] = [:]
        for s in subscriptions { if let o = s.ownerUserID { owners[s.originalTransactionID] = o } }
        for p in purchases { if let o = p.ownerUserID { owners[p.originalTransactionID] = o } }
        return owners
    }

    /// The paid transaction in an event, if it counts: production, purchase or renewal.
    static func payment(_ event: LedgerEvent) -> (
        at: Instant, originalTransactionID: String, appUserID: String?, transactionID: String
    )? {
        func fromTransaction(_ t: TransactionFacts) -> (Instant, String, String?, String)? {
            guard t.environment.isProduction else { return nil }
            return (t.purchaseDate, t.originalTransactionID, t.appUserID, t.transactionID)
        }
        switch event {
        case .purchaseConsumable(let p), .purchaseNonConsumable(let p), .purchaseNonRenewing(let p):
            return fromTransaction(p.transaction)
        case .subscriptionStarted(let s): return fromTransaction(s.transaction)
        case .subscriptionRenewed(let r), .billingRecovered(let r): return fromTransaction(r.transaction)
        case .renewalPreferenceChanged(let c): return c.transaction.flatMap(fromTransaction)
        case .externalPurchase(let p):
            guard p.environment.isProduction else { return nil }
            return (p.purchasedAt, p.paymentID, p.appUserID, p.paymentID)
        case .consumed, .billingFailed, .gracePeriodExpired, .subscriptionExpired, .autoRenewChanged, .priceIncrease,
            .renewalExtended, .refunded, .refundDeclined, .refundReversed, .revoked, .consumptionRequested, .linked,
            .transferred, .appStoreNotification:
            return nil
        }
    }
}
