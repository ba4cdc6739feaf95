import LedgerDomain
import PostgresClient

/// What the live streams read to follow the log behind the per-user read models: how far both purchase projections
/// have applied it, which purchases changed in a stretch of it, and who owns them now.
public struct LiveQueries: Sendable {
    public let pool: PostgresPool
    static let projections = [SubscriptionStatusReducer.name, PurchaseRecordReducer.name]

    public init(pool: PostgresPool) { self.pool = pool }

    /// The point of the log up to which both purchase projections have applied every event (nil: not built yet).
    public func frontier() async throws -> LogCheckpoint? {
        let rows = try await pool.query(
            prepared: """
                SELECT transaction_id, position FROM ledger.projection_checkpoints WHERE projection = ANY(\(TextArray(Self.projections)))
                ORDER BY transaction_id, position
                """)
        guard rows.count == Self.projections.count, let row = rows.first else { return nil }
        return LogCheckpoint(transactionID: try row.decode(UInt64.self, at: 0), position: try row.decode(Int64.self, at: 1))
    }

    /// The purchases (app, original transaction id) of `apps` with events after `after` and up to `through`, in the
    /// log's commit-safe order (everything up to a projection checkpoint is committed and applied).
    public func changedPurchases(after: LogCheckpoint, through: LogCheckpoint, apps: [String]) async throws -> [(app: String, key: String)] {
        guard !apps.isEmpty else { return [] }
        return try await pool.query(
            prepared: """
                SELECT DISTINCT app_id, stream_id FROM ledger.events
                WHERE (transaction_id, position) > (\(TransactionIDValue(value: after.transactionID)), \(after.position))
                  AND (transaction_id, position) <= (\(TransactionIDValue(value: through.transactionID)), \(through.position))
                  AND app_id = ANY(\(TextArray(apps)))
                """
        ).compactMap { row in
            guard let key = LedgerStreams.originalTransactionID(ofPurchase: try row.decode(String.self, at: 1)) else { return nil }
            return (try row.decode(String.self, at: 0), key)
        }
    }

    /// The owners now of the app's purchases `keys` that are among `users`.
    public func owners(app appID: String, of keys: [String], among users: [String]) async throws -> Set<String> {
        guard !keys.isEmpty, !users.isEmpty else { return [] }
        return Set(
            try await pool.query(
                prepared: """
                    SELECT owner_app_user_id FROM ledger.subscriptions
                    WHERE app_id = \(appID) AND original_transaction_id = ANY(\(TextArray(keys))) AND owner_app_user_id = ANY(\(TextArray(users)))
                    UNION
                    SELECT owner_app_user_id FROM ledger.purchases
                    WHERE app_id = \(appID) AND original_transaction_id = ANY(\(TextArray(keys))) AND owner_app_user_id = ANY(\(TextArray(users)))
                    """
            ).map { try $0.decode(String.self, at: 0) })
    }
}
