import LedgerDomain
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// The change feed (`LiveQueries.changes`) runs on every look of every instance's status cache, and every round of its
/// live streams: under the generic plans the service's connections use, it must read the stretch of the log it is
/// asked about, never a whole index or the whole log (a 1.3M-event log made the statement 210 ms a look).
@Suite struct ChangeFeedPlanTests {
    @Test func aStretchOfTheLogReadsOnlyItsOwnEvents() async throws {
        let url = try await TestDatabase.makeDatabase(prefix: "change_feed_plan")
        let pool = try await LedgerDatabase.open(connectionString: url, poolSize: 1, migrations: try SchemaLocation.migrations())
        let superuser = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1)
        let store = EventStore(pool: pool)
        for batch in 0..<16 {
            _ = try await store.append(
                app: "app-\(batch % 4)", stream: LedgerStreams.purchase(originalTransactionID: "\(batch)"),
                events: (0..<500).map {
                    NewEvent(
                        type: "test.happened", payload: #"{"n":\#($0)}"#, idempotencyKey: "k\(batch)-\($0)",
                        occurredAt: Instant(microsecondsSinceEpoch: 0))
                })
        }
        let last = try await store.append(
            app: "app-9", stream: LedgerStreams.purchase(originalTransactionID: "last"),
            events: (0..<5).map {
                NewEvent(type: "test.happened", payload: "{}", idempotencyKey: "last-\($0)", occurredAt: Instant(microsecondsSinceEpoch: 0))
            })
        try await superuser.query("ANALYZE ledger.events")
        let rows = try await superuser.query("SELECT transaction_id::text::bigint, position FROM ledger.events ORDER BY transaction_id, position")
        let checkpoints = try rows.map {
            LogCheckpoint(transactionID: UInt64(try $0.decode(Int64.self, at: 0)), position: try $0.decode(Int64.self, at: 1))
        }
        let (before, end) = (checkpoints[checkpoints.count - 6], checkpoints[checkpoints.count - 1])
        #expect(last.positions.count == 5)

        let feed = LiveQueries(pool: pool)
        // Prepared on the connection here; PostgreSQL keeps the generic plan from the first execution on.
        _ = try await feed.changes(after: before, through: end, apps: nil)
        // Both sessions publish what they read so far (the superuser's walk of the log above among it) before the
        // counters start again; a session otherwise publishes at most once a second, possibly after the reset.
        try await EventIndexScans.flush(pool)
        try await EventIndexScans.flush(superuser)
        try await superuser.query("SELECT pg_stat_reset_single_table_counters('ledger.events'::regclass)")
        try await EventIndexScans.reset(superuser)
        for apps in [nil, ["app-9"], ["app-0", "app-9"]] as [[String]?] {
            let changes = try await feed.changes(after: before, through: end, apps: apps)
            #expect(changes.purchases.map(\.key) == ["last"] && changes.complete, "\(apps ?? [])")
        }
        let bounded = try await feed.changes(after: .start, through: end, apps: nil, limit: 100)
        #expect(!bounded.complete)
        try await EventIndexScans.flush(pool)
        let read = try await superuser.query(
            """
            SELECT (SELECT seq_tup_read FROM pg_stat_user_tables WHERE relid = 'ledger.events'::regclass),
                   (SELECT sum(idx_tup_read)::bigint FROM pg_stat_user_indexes WHERE relid = 'ledger.events'::regclass)
            """
        ).first.map { (try $0.decode(Int64.self, at: 0), try $0.decode(Int64?.self, at: 1) ?? 0) }
        // Three stretches of five events, and a stretch cut at 101 of 8,005.
        #expect(read?.0 == 0, "rows of the log read by sequential scans: \(String(describing: read))")
        #expect((read?.1 ?? .max) <= 3 * 6 + 102, "index entries read: \(String(describing: read))")
        await superuser.shutdown()
        await pool.shutdown()
    }
}
