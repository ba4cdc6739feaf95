import UTCTime

/// A restore refused under the app's transfer policy: the transactions that belong to another user.
public struct RestoreRefusal: Error, Sendable, Equatable {
    /// One conflicting transaction and its current owner.
    public struct Conflict: Sendable, Hashable, Codable {
        public var originalTransactionID: String
        public var ownerUserID: String
        public init(originalTransactionID: String, ownerUserID: String) {
            self.originalTransactionID = originalTransactionID
            self.ownerUserID = ownerUserID
        }
    }

    public var policy: TransferPolicy
    /// Sorted by original transaction id.
    public var conflicts: [Conflict]

    public init(policy: TransferPolicy, conflicts: [Conflict]) {
        self.policy = policy
        self.conflicts = conflicts
    }

    /// A message that says what happened and what to do.
    public var message: String {
        let ids = conflicts.map(\.originalTransactionID).joined(separator: ", ")
        switch policy {
        case .keepAndRefuse:
            return "These purchases belong to another account of this app (\(ids)); sign in with that account to use them."
        case .transferIfNoActive, .transfer:
            return "These purchases belong to another account that still has active purchases (\(ids)); sign in with that account or wait until "
                + "they end."
        }
    }
}

/// Restore: link the store's transactions to the current app user under the app's transfer policy.
public enum RestoreRules {
    /// The events to append when `appUserID` restores the original transactions `originalTransactionIDs`
    /// (what the store / receipt lists for this device's Apple account), or a refusal.
    ///
    /// - Transactions nobody owns, or this user already owns, are linked (`identity.linked`, source restore).
    ///   Ones already owned by this user are left out (nothing to record).
    /// - Transactions of other users are transferred (`identity.transferred`, one event per previous owner) with
    ///   `.transfer`; with `.transferIfNoActive` only if that owner has nothing active at `instant`, else the
    ///   whole restore is refused; with `.keepAndRefuse` the whole restore is refused.
    /// All or nothing, so a refused restore changes nothing and can be retried after the user signs in.
    ///
    /// `subscriptions` and `purchases` are the per-transaction states of the restored transactions and of every
    /// transaction of their current owners (needed for the "has active" test).
    public static func restore(
        originalTransactionIDs: [String], to appUserID: String, policy: TransferPolicy,
        subscriptions: [SubscriptionSummary], purchases: [PurchaseSummary], at instant: Instant
    ) -> Result<[LedgerEvent], RestoreRefusal> {
        var owners: [String: String] = [:]
        for s in subscriptions { if let o = s.ownerUserID { owners[s.originalTransactionID] = o } }
        for p in purchases { if let o = p.ownerUserID { owners[p.originalTransactionID] = o } }

        var toLink: [String] = []
        var byOldOwner: [String: [String]] = [:]
        for id in uniqueSorted(originalTransactionIDs) {
            switch owners[id] {
            case nil: toLink.append(id)
            case appUserID?: continue
            case let other?: byOldOwner[other, default: []].append(id)
            }
        }

        var conflicts: [RestoreRefusal.Conflict] = []
        for (owner, ids) in byOldOwner {
            let refuse: Bool =
                switch policy {
                case .transfer: false
                case .keepAndRefuse: true
                case .transferIfNoActive:
                    UserView(appUserID: owner, subscriptions: subscriptions, purchases: purchases).hasActive(at: instant)
                }
            if refuse { conflicts += ids.map { .init(originalTransactionID: $0, ownerUserID: owner) } }
        }
        if !conflicts.isEmpty {
            return .failure(
                RestoreRefusal(
                    policy: policy, conflicts: conflicts.sorted { $0.originalTransactionID < $1.originalTransactionID }))
        }

        var events: [LedgerEvent] = []
        if !toLink.isEmpty {
            events.append(
                .linked(
                    TransactionLink(
                        appUserID: appUserID, originalTransactionIDs: toLink, linkedAt: instant, source: .restore)))
        }
        for owner in byOldOwner.keys.sorted() {
            events.append(
                .transferred(
                    Transfer(
                        fromUserID: owner, toUserID: appUserID, originalTransactionIDs: byOldOwner[owner] ?? [],
                        transferredAt: instant, policy: policy)))
        }
        return .success(events)
    }
}
