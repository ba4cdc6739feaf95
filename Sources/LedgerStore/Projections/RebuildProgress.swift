import PostgresClient

/// A rebuild's progress in `ledger.rebuild_progress` (schema/029), for the metrics of every running service
/// (`OperationsProbe`: `ledger_rebuild_running`, `ledger_rebuild_events_done`, `ledger_rebuild_events_estimated`).
///
/// It writes on a connection of its own, at most once a second, and never fails the rebuild: a report that cannot be
/// written only leaves the dashboards without it.
struct RebuildProgressReport {
    private let connection: PostgresConnection?
    private var lastWrite = ContinuousClock.now

    init(configuration: PostgresConfiguration, projections: [String]) {
        connection = try? PostgresConnection.connect(configuration)
        _ = try? connection?.query(
            """
            INSERT INTO ledger.rebuild_progress AS p (singleton, projections, status, events_done, events_estimated, started_at, updated_at)
            SELECT true, \(projections.joined(separator: ",")), 'running', 0,
                   CASE WHEN c.reltuples > 0 THEN c.reltuples::bigint ELSE (SELECT count(*) FROM ledger.events) END, now(), now()
            FROM pg_class c WHERE c.oid = 'ledger.events'::regclass
            ON CONFLICT (singleton) DO UPDATE SET projections = EXCLUDED.projections, status = 'running', events_done = 0,
                events_estimated = EXCLUDED.events_estimated, started_at = EXCLUDED.started_at, updated_at = EXCLUDED.updated_at
            """)
    }

    /// `done` events folded so far.
    mutating func advance(_ done: Int) {
        guard ContinuousClock.now - lastWrite >= .seconds(1) else { return }
        lastWrite = .now
        write(status: "running", done: done)
    }

    func finish(_ done: Int) { write(status: "finished", done: done) }

    func fail() { write(status: "failed", done: nil) }

    private func write(status: String, done: Int?) {
        _ = try? connection?.query(
            """
            UPDATE ledger.rebuild_progress SET status = \(status), events_done = COALESCE(\(done.map(Int64.init)), events_done),
                updated_at = now()
            """)
    }
}
