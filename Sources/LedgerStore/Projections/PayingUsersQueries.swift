import LedgerDomain
import PostgresClient

/// Reads of the `paying_users` read model for invoices.
public enum PayingUsersQueries {
    /// Takes the projection's lock until the caller's transaction ends (the worker waits meanwhile) and returns the
    /// snapshot of exactly the events the read model holds: every committed event of the transactions up to its
    /// checkpoint's (batches apply whole transactions), as `pg_snapshot` text.
    public static func lockedSnapshot(on connection: PostgresConnection) throws -> String {
        try ProjectionCheckpoints.lock(PayingUsersReducer.name, on: connection)
        let next = try ProjectionCheckpoints.checkpoint(PayingUsersReducer.name, on: connection).transactionID + 1
        return "\(next):\(next):"
    }

    /// One app's distinct paying users in one month.
    public struct MonthCount: Sendable, Equatable {
        public var month: String
        public var appID: String
        public var payingUsers: Int
    }

    /// The distinct paying users of every month of `apps`: one grouped count over the read model. Distinct users
    /// come from the `(app_id, month, app_user_id)` index in its order, so nothing is sorted.
    public static func counts(apps: [String], on connection: PostgresConnection) throws -> [MonthCount] {
        try connection.query(
            """
            SELECT month, app_id, count(*) FROM (
                SELECT DISTINCT app_id, month, app_user_id FROM ledger.paying_users WHERE app_id = ANY(\(TextArray(apps)))
            ) AS users
            GROUP BY app_id, month
            """
        ).map {
            MonthCount(
                month: try $0.decode(String.self, at: 0), appID: try $0.decode(String.self, at: 1),
                payingUsers: try $0.decode(Int.self, at: 2))
        }
    }
}
