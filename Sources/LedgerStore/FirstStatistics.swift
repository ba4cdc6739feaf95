import PostgresClient
import Synchronization

/// Statistics for tables that start empty on a new install (or when a feature is first used), taken as soon as they
/// hold enough rows instead of at autovacuum's first visit.
///
/// Without column statistics PostgreSQL rates every equality alike, so each index whose leading columns a statement
/// names looks as selective as the primary key, and the smallest wins: on `webhook_deliveries`, whose indexes all
/// start with `(app_id, endpoint_id)`, the update of one delivery by its key read every delivery of the endpoint
/// through `webhook_deliveries_created`. The service's connections keep such a generic plan until an ANALYZE of the
/// table invalidates it, up to `autovacuum_naptime` (a minute by default) after the first rows: a new install's first
/// minute of webhooks ran at a fraction of its pace, and how much depended on when autovacuum came.
///
/// `analyze(on:)` asks `ledger.first_statistics` (schema/033; the service's role does not own the tables) for each
/// table not known to have column statistics (an ANALYZE while it was empty leaves none), until each has them; then
/// it costs nothing (no statement).
package final class FirstStatistics: Sendable {
    private let tables: [String]
    private let minimumRows: Int32
    private let analyzed = Mutex<Set<String>>([])

    /// `tables` must be among those `ledger.first_statistics` names.
    package init(tables: [String], minimumRows: Int32 = 100) {
        self.tables = tables
        self.minimumRows = minimumRows
    }

    /// Whether every table has statistics: nothing left to ask.
    package var isDone: Bool { analyzed.withLock { $0.count == tables.count } }

    package func analyze(on connection: PostgresConnection) throws {
        for table in analyzed.withLock({ done in tables.filter { !done.contains($0) } }) {
            let done = try connection.query("SELECT ledger.first_statistics(\(table)::regclass, \(minimumRows))").first?.decode(Bool.self, at: 0)
            if done == true { analyzed.withLock { _ = $0.insert(table) } }
        }
    }
}
