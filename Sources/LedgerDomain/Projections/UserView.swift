import UTCTime

/// The per-transaction states that belong to one app user: the input of every per-user projection.
///
/// Why per-user projections are queries over per-transaction states rather than reducers keyed by user:
/// App Store notifications carry no app user id. A subscription's history is recorded under its original
/// transaction id long before (or without) any link to a user, and a restore or transfer moves the whole
/// history to another user at once. Keeping the facts per transaction with an `owner`, and selecting by owner,
/// makes late linking and transfers exact with no re-keying. The runtime keeps `subscription_status` and
/// `purchases` tables with an indexed owner column and calls these functions on the rows of one owner.
public struct UserView: Sendable, Equatable {
    public var appUserID: String
    public var subscriptions: [SubscriptionSummary]
    public var purchases: [PurchaseSummary]
    /// Promotional entitlements operators gave the user (support grants): entitlements, never purchases.
    public var grants: [GrantSummary]

    /// Selects the states owned by `appUserID` (states of other owners are dropped, unknown ones too).
    public init(appUserID: String, subscriptions: [SubscriptionSummary], purchases: [PurchaseSummary], grants: [GrantSummary] = []) {
        self.appUserID = appUserID
        self.subscriptions =
            subscriptions
            .filter { $0.isKnown && $0.ownerUserID == appUserID }
            .sorted { $0.originalTransactionID < $1.originalTransactionID }
        self.purchases =
            purchases
            .filter { $0.isKnown && $0.ownerUserID == appUserID }
            .sorted { $0.originalTransactionID < $1.originalTransactionID }
        self.grants = grants.filter { $0.appUserID == appUserID }.sorted { $0.grantID < $1.grantID }
    }

    /// Whether the user has anything giving access at `instant` (the test of `TransferPolicy.transferIfNoActive`):
    /// an entitled subscription or an active non-consumable / non-renewing / external purchase. Unconsumed
    /// consumables do not count: they are goods waiting for delivery, not an ongoing service.
    public func hasActive(at instant: Instant) -> Bool {
        subscriptions.contains { $0.isEntitled(at: instant) }
            || purchases.contains { $0.isActive(at: instant) && $0.details?.productType != .consumable }
    }
}

/// What the read models hold for one user at a time (or several, for the live streams): the per-transaction
/// summaries they own and their grants, as one status read returns them.
public struct OwnedSummaries: Sendable, Equatable {
    public var subscriptions: [SubscriptionSummary]
    public var purchases: [PurchaseSummary]
    public var grants: [GrantSummary]

    public init(subscriptions: [SubscriptionSummary] = [], purchases: [PurchaseSummary] = [], grants: [GrantSummary] = []) {
        self.subscriptions = subscriptions
        self.purchases = purchases
        self.grants = grants
    }

    /// Whether the ledger knows anything of the user: a purchase (bought, restored, uploaded or linked to them,
    /// whatever its state now) or a grant. An unknown user's state is empty, and `known: false` tells that apart from
    /// a user who holds nothing active, which a mistyped id would otherwise look like.
    public var isKnown: Bool { !subscriptions.isEmpty || !purchases.isEmpty || !grants.isEmpty }

    /// The owner the summaries name, for one user's summaries (a status read's): the pseudonym the log names the user
    /// by, which `UserView` and `UserSnapshot` select by; nil when there are none.
    public var owner: String? { subscriptions.first?.ownerUserID ?? purchases.first?.ownerUserID ?? grants.first?.appUserID }

    /// These summaries without the purchases `originalTransactionIDs` names: what an owner holds besides the purchases
    /// a change or a restore is about (those it folds itself).
    public func excluding(_ originalTransactionIDs: Set<String>) -> OwnedSummaries {
        OwnedSummaries(
            subscriptions: subscriptions.filter { !originalTransactionIDs.contains($0.originalTransactionID) },
            purchases: purchases.filter { !originalTransactionIDs.contains($0.originalTransactionID) }, grants: grants)
    }

    /// Summaries read for several owners in one statement, split by owner (the purchases' owner, the grants' user).
    public var byOwner: [String: OwnedSummaries] {
        var owners: [String: OwnedSummaries] = [:]
        for summary in subscriptions { owners[summary.ownerUserID ?? "", default: OwnedSummaries()].subscriptions.append(summary) }
        for summary in purchases { owners[summary.ownerUserID ?? "", default: OwnedSummaries()].purchases.append(summary) }
        for grant in grants { owners[grant.appUserID, default: OwnedSummaries()].grants.append(grant) }
        return owners
    }
}
