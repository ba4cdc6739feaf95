import LedgerDomain
import PostgresClient

/// Reads for the per-user views: the per-transaction states an app user owns (from the read models, so they
/// may lag the log by one batch) and the events of those transactions (the user's audit timeline).
public struct UserQueries: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) { self.pool = pool }

    /// Subscriptions and purchases owned by any of `owners`, leaving out the original transaction ids in `excluding`.
    public func ownedStates(app appID: String, owners: Set<String>, excluding: Set<String> = [])
        async throws -> (subscriptions: [SubscriptionStatus], purchases: [PurchaseRecord]) {
        guard !owners.isEmpty else { return ([], []) }
        let users = TextArray(owners.sorted())
        return try await pool.withConnection { connection in
            let rows = try connection.query("""
                SELECT true, original_transaction_id, fold_state::text FROM ledger.subscriptions
                WHERE app_id = \(appID) AND owner_app_user_id = ANY(\(users))
                UNION ALL
                SELECT false, original_transaction_id, fold_state::text FROM ledger.purchases
                WHERE app_id = \(appID) AND owner_app_user_id = ANY(\(users))
                ORDER BY 2
                """)
            var subscriptions: [SubscriptionStatus] = []
            var purchases: [PurchaseRecord] = []
            // Rows a rebuild wrote carry no fold state until an event touches them: folded from their streams.
            var unfolded: (subscriptions: [StateKey], purchases: [StateKey]) = ([], [])
            for row in rows where !excluding.contains(try row.decode(String.self, at: 1)) {
                let isSubscription = try row.decode(Bool.self, at: 0)
                guard let state = try row.decode(String?.self, at: 2) else {
                    let key = StateKey(appID: appID, key: try row.decode(String.self, at: 1))
                    if isSubscription { unfolded.subscriptions.append(key) } else { unfolded.purchases.append(key) }
                    continue
                }
                if isSubscription {
                    subscriptions.append(try StateCodec.decode(SubscriptionStatus.self, from: state))
                } else {
                    purchases.append(try StateCodec.decode(PurchaseRecord.self, from: state))
                }
            }
            subscriptions += try SubscriptionsReadModel.foldFromLog(unfolded.subscriptions, through: nil, on: connection).values.map(\.state)
            purchases += try PurchasesReadModel.foldFromLog(unfolded.purchases, through: nil, on: connection).values.map(\.state)
            subscriptions.sort { $0.originalTransactionID < $1.originalTransactionID }
            purchases.sort { $0.originalTransactionID < $1.originalTransactionID }
            return (subscriptions, purchases)
        }
    }

    /// The user's view: every per-user projection, evaluated at `instant` with the app's `catalog`.
    public func snapshot(app appID: String, user appUserID: String, catalog: Catalog, at instant: Instant) async throws -> UserSnapshot {
        let owned = try await ownedStates(app: appID, owners: [appUserID])
        return UserSnapshot(appUserID: appUserID, subscriptions: owned.subscriptions, purchases: owned.purchases,
                            catalog: catalog, at: instant)
    }

    /// The events of every transaction the user owns now, after log position `after`, in position order, at most
    /// `limit` of them.
    public func timeline(app appID: String, user appUserID: String, after position: Int64, limit: Int) async throws -> [RecordedEvent] {
        let owned = try await ownedStates(app: appID, owners: [appUserID])
        let ids = Set(owned.subscriptions.map(\.originalTransactionID) + owned.purchases.map(\.originalTransactionID))
        guard !ids.isEmpty else { return [] }
        let streams = ids.sorted().map { LedgerStreams.purchase(originalTransactionID: $0) }
        return try await pool.withConnection { connection in
            try EventColumns.decode(connection.query("""
                SELECT \(unescaped: EventColumns.list) FROM ledger.events
                WHERE app_id = \(appID) AND stream_id = ANY(\(TextArray(streams))) AND position > \(position)
                ORDER BY position LIMIT \(Int64(limit))
                """))
        }
    }
}
