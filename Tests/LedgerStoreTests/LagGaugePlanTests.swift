import LedgerDomain
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// The lag gauge (`ledger_projection_lag_events`) is published about once a second by every worker: its count must
/// walk the log's order index from the checkpoint, never the whole log, under the generic plans the service's
/// connections use (`LedgerDatabase.open`); a scan would grow with the log, every second.
@Suite struct LagGaugePlanTests {
    @Test func theLagCountReadsFromTheCheckpointThroughTheIndex() async throws {
        let url = try await TestDatabase.makeDatabase(prefix: "lag_plan")
        let pool = try await LedgerDatabase.open(connectionString: url, poolSize: 1, migrations: try SchemaLocation.migrations())
        let superuser = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1)
        let store = EventStore(pool: pool)
        for batch in 0..<8 {
            _ = try await store.append(
                app: "app-a", stream: "s\(batch)",
                events: (0..<500).map {
                    NewEvent(
                        type: "test.happened", payload: #"{"n":\#($0)}"#, idempotencyKey: "k\(batch)-\($0)",
                        occurredAt: Instant(microsecondsSinceEpoch: 0))
                })
        }
        try await superuser.query("ANALYZE ledger.events")
        let worker = ProjectionWorker(pool: pool, runners: ProjectionCatalog.runners())
        try await worker.catchUp(recordingLag: true)  // the connection prepares its statements here
        try await EventIndexScans.flush(pool)
        try await superuser.query("SELECT pg_stat_reset_single_table_counters('ledger.events'::regclass)")
        try await worker.catchUp(recordingLag: true)
        try await worker.catchUp(recordingLag: true)
        try await EventIndexScans.flush(pool)
        let scans = try await superuser.query("SELECT seq_scan, seq_tup_read FROM pg_stat_user_tables WHERE relid = 'ledger.events'::regclass")
            .first.map { (try $0.decode(Int64.self, at: 0), try $0.decode(Int64.self, at: 1)) }
        #expect(scans?.0 == 0, "sequential scans of the log: \(String(describing: scans))")
        let indexes = try await EventIndexScans.counts(superuser)
        #expect(indexes["events_transaction_order"] ?? 0 >= 2 * Int64(ProjectionCatalog.runners().count), "\(indexes)")
        await superuser.shutdown()
        await pool.shutdown()
    }
}
