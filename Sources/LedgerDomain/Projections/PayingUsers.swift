import UTCTime

/// Who paid for one purchase (original transaction id) in which months: the basis of monthly paying users
/// (SPEC §5 usage, and so of invoices).
///
/// A purchase counts in a calendar month (UTC) when a Production purchase or renewal transaction of it was
/// purchased in that month. Sandbox, Xcode and test payments never count; a refund does not un-count (the month's
/// usage happened). The month's paying user is the purchase's owner (the strongest, latest claim of every event
/// about it), else the app user id a paying event carried, else the purchase stands for an unknown user
/// (`otx:<id>`), so it still counts once.
public struct PayingPurchase: Sendable, Codable, Equatable {
    public var originalTransactionID: String
    public var owner: OwnerClaim?
    /// The months (`YYYY-MM`) the purchase was paid in, with what the paying events said.
    public var months: [String: PaidMonth]

    /// What made a month paying: deterministic whatever the delivery order (the smallest of each).
    public struct PaidMonth: Sendable, Codable, Equatable {
        /// The smallest app user id a paying event of the month carried, if any.
        public var appUserID: String?
        /// The smallest paying transaction id of the month: the payment that makes it count. (Not its log
        /// position: that belongs to one recording of the facts, and two logs of the same facts must fold to equal
        /// states.)
        public var transactionID: String

        public init(appUserID: String?, transactionID: String) {
            self.appUserID = appUserID
            self.transactionID = transactionID
        }
    }

    public init(originalTransactionID: String, owner: OwnerClaim? = nil, months: [String: PaidMonth] = [:]) {
        self.originalTransactionID = originalTransactionID
        self.owner = owner
        self.months = months
    }

    /// The user who counts for `month`, nil when the purchase was not paid in it.
    public func payingUser(in month: String) -> String? {
        guard let paid = months[month] else { return nil }
        return owner?.appUserID ?? paid.appUserID ?? "otx:\(originalTransactionID)"
    }
}

/// Reducer of `PayingPurchase`, keyed by original transaction id. Read model and checkpoint name `paying_users`.
public enum PayingUsersReducer: ProjectionReducer {
    public typealias State = PayingPurchase

    public static let name = "paying_users"

    /// Every event about a purchase that pays for it or says who owns it.
    public static func keys(for event: DomainEvent) -> [String] {
        guard payment(event.event) != nil || event.event.ownerClaim != nil else { return [] }
        return uniqueSorted(event.event.originalTransactionIDs)
    }

    public static func initial(key: String) -> PayingPurchase {
        PayingPurchase(originalTransactionID: key)
    }

    public static func apply(_ s: inout PayingPurchase, _ event: DomainEvent) {
        s.owner = OwnerClaim.merge(s.owner, event.event.ownerClaim)
        guard let paid = payment(event.event), paid.originalTransactionID == s.originalTransactionID else { return }
        let month = CalendarMonth(containing: paid.at).description
        let known = s.months[month]
        s.months[month] = PayingPurchase.PaidMonth(
            appUserID: [known?.appUserID, paid.appUserID].compactMap { $0 }.min(),
            transactionID: known.map { min($0.transactionID, paid.transactionID) } ?? paid.transactionID)
    }

    /// The distinct paying users per app and month of the purchases in `states` (app id → states).
    public static func usage(_ states: [String: [PayingPurchase]]) -> [String: [String: Int]] {
        var users: [String: [String: Set<String>]] = [:]
        for (app, purchases) in states {
            for purchase in purchases {
                for month in purchase.months.keys {
                    if let user = purchase.payingUser(in: month) { users[month, default: [:]][app, default: []].insert(user) }
                }
            }
        }
        return users.mapValues { $0.mapValues(\.count) }
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
            .renewalExtended, .refunded, .refundDeclined, .refundReversed, .revoked, .consumptionRequested, .consumptionInformationSent, .linked,
            .consumptionAnswerWithheld, .consumptionConsentRecorded, .grantGiven, .grantRevoked,
            .transferred, .appStoreNotification:
            return nil
        }
    }
}
