import LedgerDomain
import PostgresClient
import UTCTime

/// How far the log's consumers are, as operators read it: each projection's checkpoint against the log's head, and
/// the latest signed digest of each app's log.
package struct LogStatusQueries: Sendable {
    let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    /// Each projection's checkpoint against the log's last position.
    package func projectionLag() async throws -> (head: Int64, checkpoints: [(name: String, position: Int64, updatedAt: Instant)]) {
        let head = try await pool.query("SELECT coalesce(max(position), 0)::bigint FROM ledger.events").first?.decode(Int64.self, at: 0) ?? 0
        let rows = try await pool.query("SELECT projection, position, updated_at FROM ledger.projection_checkpoints ORDER BY projection")
        return (head, try rows.map { (try $0.decode(String.self, at: 0), try $0.decode(Int64.self, at: 1), try $0.decode(Instant.self, at: 2)) })
    }

    /// The latest signed digest of each app's log.
    package func digests() async throws -> [(app: String, count: Int64, at: Instant)] {
        let rows = try await pool.query(
            """
            SELECT DISTINCT ON (app_id) app_id, event_count, created_at FROM ledger.chain_digests ORDER BY app_id, digest_id DESC
            """)
        return try rows.map { (try $0.decode(String.self, at: 0), try $0.decode(Int64.self, at: 1), try $0.decode(Instant.self, at: 2)) }
    }
}
