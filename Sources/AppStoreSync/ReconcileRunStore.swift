import LedgerDomain
import LedgerStore
import PostgresClient
import UTCTime

/// The daily App Store reconciliation's lease and last outcome per app (`schema/014_appstore_reconcile.sql`).
package struct ReconcileRunStore: Sendable {
    package let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    /// The last run of an app.
    package struct Run: Sendable, Equatable {
        package var appID: String
        package var startedAt: Instant
        package var finishedAt: Instant?
        package var succeeded: Bool?
        package var seen: Int
        package var missed: Int
        package var error: String?
        package var lastSuccessStartedAt: Instant?
    }

    /// Claims the run due at `now` when the last one started at or before `dueIfStartedBefore` (or never), or failed and
    /// started at or before `failedDueIfStartedBefore`: true for exactly one caller among concurrent instances.
    package func claim(app appID: String, now: Instant, dueIfStartedBefore: Instant, failedDueIfStartedBefore: Instant) async throws -> Bool {
        let rows = try await pool.query(
            """
            INSERT INTO ledger.appstore_reconcile_runs AS r (app_id, started_at) VALUES (\(appID), \(now))
            ON CONFLICT (app_id) DO UPDATE SET started_at = EXCLUDED.started_at, finished_at = NULL, succeeded = NULL, error = NULL
            WHERE r.started_at <= \(dueIfStartedBefore) OR (r.succeeded = false AND r.started_at <= \(failedDueIfStartedBefore))
            RETURNING app_id
            """)
        return !rows.isEmpty
    }

    /// Records how the run claimed at `startedAt` ended.
    package func finish(
        app appID: String, startedAt: Instant, at now: Instant, succeeded: Bool, seen: Int, missed: Int,
        error: String?
    ) async throws {
        _ = try await pool.query(
            """
            UPDATE ledger.appstore_reconcile_runs
            SET finished_at = \(now), succeeded = \(succeeded), seen = \(Int64(seen)), missed = \(Int64(missed)), error = \(error),
                last_success_started_at = CASE WHEN \(succeeded) THEN started_at ELSE last_success_started_at END
            WHERE app_id = \(appID) AND started_at = \(startedAt)
            """)
    }

    package func lastRun(app appID: String) async throws -> Run? {
        try await pool.query(
            """
            SELECT app_id, started_at, finished_at, succeeded, seen, missed, error, last_success_started_at FROM ledger.appstore_reconcile_runs
            WHERE app_id = \(appID)
            """
        ).first.map { row in
            var cells = PostgresRowCursor(row)
            return Run(
                appID: try cells.next(String.self), startedAt: try cells.next(Instant.self), finishedAt: try cells.next(Instant?.self),
                succeeded: try cells.next(Bool?.self), seen: Int(try cells.next(Int32.self)), missed: Int(try cells.next(Int32.self)),
                error: try cells.next(String?.self), lastSuccessStartedAt: try cells.next(Instant?.self))
        }
    }
}
