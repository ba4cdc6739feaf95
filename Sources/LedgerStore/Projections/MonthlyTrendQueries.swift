import LedgerDomain
import PostgresClient
import UTCTime

/// Month-by-month figures of the read models, for the console's finance charts: paying users (what invoices bill),
/// subscriptions started, active and churned, and one month's paying users page by page. `account` nil: every account.
package struct MonthlyTrendQueries: Sendable {
    let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    /// A series of (month, value) points; `account` nil: every account.
    package typealias Series = [(month: String, value: Int64)]

    /// Distinct paying users per month (what invoices bill), of all apps or one account's.
    package func payingUsersPerMonth(account: String?) async throws -> Series {
        try await series(
            """
            SELECT month, count(DISTINCT (app_id, app_user_id)) FROM ledger.paying_users
            WHERE (\(account)::text IS NULL OR app_id IN (SELECT id FROM ledger.apps WHERE account_id = \(account)::text))
            GROUP BY month ORDER BY month
            """)
    }

    /// Subscriptions that started (first activated) in each month.
    package func newSubscriptionsPerMonth(account: String?) async throws -> Series {
        try await series(
            """
            SELECT to_char(activated_at AT TIME ZONE 'UTC', 'YYYY-MM'), count(*) FROM ledger.subscriptions
            WHERE activated_at IS NOT NULL
              AND (\(account)::text IS NULL OR app_id IN (SELECT id FROM ledger.apps WHERE account_id = \(account)::text))
            GROUP BY 1 ORDER BY 1
            """)
    }

    /// Subscriptions whose last paid period ended in each month, before `now` (ended and not renewed since).
    package func churnedSubscriptionsPerMonth(account: String?, now: Instant) async throws -> Series {
        try await series(
            """
            SELECT to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM'), count(*) FROM ledger.subscriptions
            WHERE expires_at < \(now)
              AND (\(account)::text IS NULL OR app_id IN (SELECT id FROM ledger.apps WHERE account_id = \(account)::text))
            GROUP BY 1 ORDER BY 1
            """)
    }

    /// Subscriptions active at some time in each month, from the first month one started to the month of `now`.
    package func activeSubscriptionsPerMonth(account: String?, now: Instant) async throws -> Series {
        try await series(
            """
            WITH s AS (
                SELECT activated_at AT TIME ZONE 'UTC' AS started, expires_at AT TIME ZONE 'UTC' AS ended FROM ledger.subscriptions
                WHERE activated_at IS NOT NULL
                  AND (\(account)::text IS NULL OR app_id IN (SELECT id FROM ledger.apps WHERE account_id = \(account)::text))
            ), months AS (
                SELECT generate_series(date_trunc('month', min(started)), date_trunc('month', \(now)::timestamptz AT TIME ZONE 'UTC'),
                                       interval '1 month') AS m FROM s
            )
            SELECT to_char(m, 'YYYY-MM'), (SELECT count(*) FROM s WHERE started < m + interval '1 month' AND (ended IS NULL OR ended >= m))
            FROM months ORDER BY m LIMIT 120
            """)
    }

    /// The paying users an invoice's month counted for the account's apps, one page.
    package func payingUsers(account: String, month: String, after: String, limit: Int) async throws -> [(app: String, user: String)] {
        let rows = try await pool.query(
            """
            SELECT DISTINCT app_id, app_user_id FROM ledger.paying_users
            WHERE month = \(month) AND app_id IN (SELECT id FROM ledger.apps WHERE account_id = \(account))
              AND app_id || ' ' || app_user_id > \(after)
            ORDER BY app_id, app_user_id LIMIT \(Int64(limit))
            """)
        return try rows.map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
    }

    private func series(_ query: PostgresQuery) async throws -> Series {
        try await pool.query(query).map { (try $0.decode(String.self, at: 0), try $0.decode(Int64.self, at: 1)) }
    }
}
