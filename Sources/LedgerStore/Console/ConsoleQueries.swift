import LedgerDomain
import PostgresClient

/// The console's own reads: lists, searches, charts and operations figures no API route answers (every value a bound
/// parameter). What the API reads too goes through the same types as the API: `UserQueries` (owned summaries, the
/// timeline and its streams), `InvoiceStore`, `TenancyStore`, `WebhookStore`, `RevenueQueries`.
package struct ConsoleQueries: Sendable {
    let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    package struct AccountRow: Sendable {
        package var id: String
        package var name: String
    }

    package struct AppRow: Sendable {
        package var id: String
        package var accountID: String
        package var name: String
        package var bundleID: String
    }

    package func accounts() async throws -> [AccountRow] {
        try await pool.query("SELECT id, name FROM ledger.accounts ORDER BY created_at, id").map {
            AccountRow(id: try $0.decode(String.self, at: 0), name: try $0.decode(String.self, at: 1))
        }
    }

    package func apps() async throws -> [AppRow] {
        try await pool.query("SELECT id, account_id, name, bundle_id FROM ledger.apps ORDER BY created_at, id").map {
            AppRow(id: try $0.decode(String.self, at: 0), accountID: try $0.decode(String.self, at: 1),
                   name: try $0.decode(String.self, at: 2), bundleID: try $0.decode(String.self, at: 3))
        }
    }

    /// The app users a search names: an app user id that owns something, or the owner of an original transaction id
    /// or a transaction id (the latest of a subscription, a one-time purchase's, or a month's paying transaction).
    package func findUsers(app appID: String, query: String) async throws -> [String] {
        let rows = try await pool.query("""
            SELECT DISTINCT owner_app_user_id FROM (
                SELECT owner_app_user_id FROM ledger.subscriptions WHERE app_id = \(appID)
                    AND (owner_app_user_id = \(query) OR original_transaction_id = \(query) OR latest_transaction_id = \(query))
                UNION ALL
                SELECT owner_app_user_id FROM ledger.purchases WHERE app_id = \(appID)
                    AND (owner_app_user_id = \(query) OR original_transaction_id = \(query) OR transaction_id = \(query))
                UNION ALL
                SELECT s.owner_app_user_id FROM ledger.paying_users p JOIN ledger.subscriptions s
                    ON s.app_id = p.app_id AND s.original_transaction_id = p.original_transaction_id
                    WHERE p.app_id = \(appID) AND p.transaction_id = \(query)
            ) found WHERE owner_app_user_id IS NOT NULL ORDER BY 1 LIMIT 50
            """)
        return try rows.map { try $0.decode(String.self, at: 0) }
    }

    // MARK: Finance charts

    /// A series of (month, value) points; `account` nil: every account.
    package typealias Series = [(month: String, value: Int64)]

    /// Distinct paying users per month (what invoices bill), of all apps or one account's.
    package func payingUsersPerMonth(account: String?) async throws -> Series {
        try await series("""
            SELECT month, count(DISTINCT (app_id, app_user_id)) FROM ledger.paying_users
            WHERE (\(account)::text IS NULL OR app_id IN (SELECT id FROM ledger.apps WHERE account_id = \(account)::text))
            GROUP BY month ORDER BY month
            """)
    }

    /// Subscriptions that started (first activated) in each month.
    package func newSubscriptionsPerMonth(account: String?) async throws -> Series {
        try await series("""
            SELECT to_char(activated_at AT TIME ZONE 'UTC', 'YYYY-MM'), count(*) FROM ledger.subscriptions
            WHERE activated_at IS NOT NULL
              AND (\(account)::text IS NULL OR app_id IN (SELECT id FROM ledger.apps WHERE account_id = \(account)::text))
            GROUP BY 1 ORDER BY 1
            """)
    }

    /// Subscriptions whose last paid period ended in each month, before `now` (ended and not renewed since).
    package func churnedSubscriptionsPerMonth(account: String?, now: Instant) async throws -> Series {
        try await series("""
            SELECT to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM'), count(*) FROM ledger.subscriptions
            WHERE expires_at < \(now)
              AND (\(account)::text IS NULL OR app_id IN (SELECT id FROM ledger.apps WHERE account_id = \(account)::text))
            GROUP BY 1 ORDER BY 1
            """)
    }

    /// Subscriptions active at some time in each month, from the first month one started to the month of `now`.
    package func activeSubscriptionsPerMonth(account: String?, now: Instant) async throws -> Series {
        try await series("""
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
        let rows = try await pool.query("""
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

    // MARK: Operations

    /// Each projection's checkpoint against the log's last position.
    package func projectionLag() async throws -> (head: Int64, checkpoints: [(name: String, position: Int64, updatedAt: Instant)]) {
        let head = try await pool.query("SELECT coalesce(max(position), 0)::bigint FROM ledger.events").first?.decode(Int64.self, at: 0) ?? 0
        let rows = try await pool.query("SELECT projection, position, updated_at FROM ledger.projection_checkpoints ORDER BY projection")
        return (head, try rows.map { (try $0.decode(String.self, at: 0), try $0.decode(Int64.self, at: 1), try $0.decode(Instant.self, at: 2)) })
    }

    /// The latest signed digest of each app's log.
    package func digests() async throws -> [(app: String, count: Int64, at: Instant)] {
        let rows = try await pool.query("""
            SELECT DISTINCT ON (app_id) app_id, event_count, created_at FROM ledger.chain_digests ORDER BY app_id, digest_id DESC
            """)
        return try rows.map { (try $0.decode(String.self, at: 0), try $0.decode(Int64.self, at: 1), try $0.decode(Instant.self, at: 2)) }
    }
}
