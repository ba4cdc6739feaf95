import LedgerDomain
import PostgresClient

/// What the live streams read to follow the log behind the per-user read models: how far the per-user projections
/// (both purchase projections and grants) have applied it, which purchases and users changed in a stretch of it, and
/// who owns those purchases now.
public struct LiveQueries: Sendable {
    public let pool: PostgresPool
    static let projections = [SubscriptionStatusReducer.name, PurchaseRecordReducer.name, GrantsReducer.name]

    /// What changed in a stretch of the log: purchases (app, original transaction id) and users whose own stream
    /// (their grants) has new events.
    public struct Changes: Sendable {
        public var purchases: [(app: String, key: String)] = []
        public var users: [(app: String, id: String)] = []
        /// False when the stretch had more events than were read.
        public var complete = true
    }

    public init(pool: PostgresPool) { self.pool = pool }

    /// The point of the log up to which both purchase projections have applied every event (nil: not built yet).
    public func frontier() async throws -> LogCheckpoint? {
        let checkpoints = try await pool.query(prepared: ProjectionCheckpoints.visible(Self.projections)).map {
            LogCheckpoint(transactionID: try $0.decode(UInt64.self, at: 1), position: try $0.decode(Int64.self, at: 2))
        }
        guard checkpoints.count == Self.projections.count else { return nil }
        return checkpoints.min()
    }

    /// The purchases and users of `apps` with events after `after` and up to `through`, in the log's commit-safe
    /// order (everything up to a projection checkpoint is committed and applied). `apps` nil: every app's (the status
    /// cache follows them all). At most `limit` events are read; `Changes.complete` says whether that was all of them.
    ///
    /// The events are walked in log order (`ORDER BY transaction_id, position` under the limit): under the generic
    /// plans the service's connections use, the statement without it was planned as a walk of the whole
    /// `(app_id, transaction_id, position)` index, 210 ms a look on a 1.3M-event log (0.3 ms now; `ChangeFeedPlanTests`).
    public func changes(after: LogCheckpoint, through: LogCheckpoint, apps: [String]?, limit: Int = Int(Int32.max) - 1) async throws -> Changes {
        guard apps?.isEmpty != true else { return Changes() }
        var changes = Changes()
        var events = 0
        for row in try await pool.query(prepared: Self.changesQuery(after: after, through: through, apps: apps, limit: limit)) {
            let (app, stream) = (try row.decode(String.self, at: 0), try row.decode(String.self, at: 1))
            events += Int(try row.decode(Int64.self, at: 2))
            if let key = LedgerStreams.originalTransactionID(ofPurchase: stream) {
                changes.purchases.append((app, key))
            } else if let user = LedgerStreams.appUserID(ofUser: stream) {
                changes.users.append((app, user))
            }
        }
        changes.complete = events <= limit
        return changes
    }

    /// `changes`' statement: the streams of the first `limit + 1` events in the stretch, each with its event count.
    package static func changesQuery(after: LogCheckpoint, through: LogCheckpoint, apps: [String]?, limit: Int) -> PostgresQuery {
        let apps = apps.map(TextArray.init)
        return """
            SELECT app_id, stream_id, count(*) FROM (
                SELECT app_id, stream_id FROM ledger.events
                WHERE (transaction_id, position) > (\(TransactionIDValue(value: after.transactionID)), \(after.position))
                  AND (transaction_id, position) <= (\(TransactionIDValue(value: through.transactionID)), \(through.position))
                  AND (\(apps)::text[] IS NULL OR app_id = ANY(\(apps)::text[]))
                ORDER BY transaction_id, position LIMIT \(Int64(limit) + 1)
            ) changed GROUP BY app_id, stream_id
            """
    }

    /// The owners now of `purchases` (app, original transaction id), whichever app each is of.
    public func owners(of purchases: [(app: String, key: String)]) async throws -> [(app: String, id: String)] {
        guard !purchases.isEmpty else { return [] }
        let (apps, keys) = (TextArray(purchases.map(\.app)), TextArray(purchases.map(\.key)))
        return try await pool.query(
            prepared: """
                WITH changed AS (SELECT * FROM unnest(\(apps), \(keys)) AS c(app_id, original_transaction_id))
                SELECT s.app_id, s.owner_app_user_id FROM changed c JOIN ledger.subscriptions s USING (app_id, original_transaction_id)
                WHERE s.owner_app_user_id IS NOT NULL
                UNION
                SELECT p.app_id, p.owner_app_user_id FROM changed c JOIN ledger.purchases p USING (app_id, original_transaction_id)
                WHERE p.owner_app_user_id IS NOT NULL
                """
        ).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
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
