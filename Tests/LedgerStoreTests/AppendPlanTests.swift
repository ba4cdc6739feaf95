import LedgerDomain
import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// A connection that first appended to an empty log must not keep a plan made for an empty log: every later
/// append's lookups (idempotency keys, the stream's head, the chain's previous hash) use the indexes made for them,
/// however large the log has grown (schema/009).
@Suite struct AppendPlanTests {
    @Test func appendsOnAConnectionThatStartedOnAnEmptyLogUseTheirIndexes() async throws {
        let url = try await TestDatabase.makeDatabase(prefix: "append_plans")
        let pool = try await LedgerDatabase.open(connectionString: url, poolSize: 1, migrations: try SchemaLocation.migrations())
        let store = EventStore(pool: pool)
        func append(_ count: Int, from start: Int) async throws {
            for n in start..<(start + count) {
                _ = try await store.append(
                    app: "app-a", stream: "s\(n % 50)",
                    events: [
                        NewEvent(
                            type: "test.happened", payload: #"{"n":\#(n)}"#, idempotencyKey: "k\(n)",
                            occurredAt: Instant(microsecondsSinceEpoch: 0))
                    ])
            }
        }
        // The pool's one connection makes its plans while the log is (nearly) empty, then the log grows.
        try await append(1_000, from: 0)
        try await EventIndexScans.flush(pool)
        let superuser = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1)
        try await EventIndexScans.reset(superuser)
        try await append(100, from: 1_000)
        try await EventIndexScans.flush(pool)
        let scans = try await EventIndexScans.counts(superuser)
        #expect(scans["events_idempotency_lookup"] ?? 0 >= 100, "\(scans)")
        #expect(scans["events_stream_version_key"] ?? 0 >= 200, "\(scans)")  // the head, and the previous hash
        #expect(scans["events_app_transaction_order"] == 0, "\(scans)")
        #expect(scans["events_pkey"] == 0, "\(scans)")
        await superuser.shutdown()
        await pool.shutdown()
    }

    /// An app the statistics do not know (created after the last ANALYZE) is estimated at one row; its appends, one
    /// event or a batch, must still find their keys through the index on the key rather than scan the
    /// app's events (schema/011).
    @Test func aNewAppsAppendsFindTheirKeysByTheKeysIndex() async throws {
        let url = try await TestDatabase.makeDatabase(prefix: "append_plans")
        let pool = try await LedgerDatabase.open(connectionString: url, poolSize: 1, migrations: try SchemaLocation.migrations())
        let store = EventStore(pool: pool)
        let superuser = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1)
        func events(_ keys: [String]) -> [NewEvent] {
            keys.map {
                NewEvent(type: "test.happened", payload: #"{"k":"\#($0)"}"#, idempotencyKey: $0, occurredAt: Instant(microsecondsSinceEpoch: 0))
            }
        }
        func appendNew(_ range: Range<Int>) async throws {
            for n in range {
                _ = try await store.append(app: "app-new", stream: "one-\(n)", events: events(["single-\(n)"]))
                _ = try await store.append(app: "app-new", stream: "two-\(n)", events: events(["first-\(n)", "second-\(n)"]))
            }
        }
        for batch in 0..<20 {
            _ = try await store.append(app: "app-old", stream: "s\(batch)", events: events((0..<100).map { "old-\(batch)-\($0)" }))
        }
        try await superuser.query("ANALYZE ledger.events")
        try await appendNew(0..<1_000)
        try await EventIndexScans.flush(pool)
        try await EventIndexScans.reset(superuser)
        try await appendNew(1_000..<1_100)
        try await EventIndexScans.flush(pool)
        let scans = try await EventIndexScans.counts(superuser)
        #expect(scans["events_idempotency_lookup"] ?? 0 >= 300, "one probe per key: \(scans)")
        #expect(scans["events_app_transaction_order"] == 0, "\(scans)")
        #expect(scans["events_pkey"] == 0, "\(scans)")
        await superuser.shutdown()
        await pool.shutdown()
    }

    /// A group of appends is one statement (schema/034) planned once per connection: made on an empty log, its
    /// lookups (keys, heads, the chain's previous hash) must still use their indexes once the log has grown.
    @Test(.disabled(if: CitusTestCluster.isActive, "on Citus a group runs append by append (GroupCommitter)"))
    func groupsOnAConnectionThatStartedOnAnEmptyLogUseTheirIndexes() async throws {
        let url = try await TestDatabase.makeDatabase(prefix: "append_plans")
        let pool = try await LedgerDatabase.open(connectionString: url, poolSize: 1, migrations: try SchemaLocation.migrations())
        func appendGroups(_ range: Range<Int>) async throws {
            try await pool.withConnection { connection in
                for group in range {
                    let requests = (0..<4).map { member in
                        let n = group * 4 + member
                        return (
                            appID: "app-a",
                            append: EventStore.StreamAppend(
                                streamID: "s\(n % 200)", expected: .any,
                                events: [
                                    NewEvent(
                                        type: "test.happened", payload: #"{"n":\#(n)}"#, idempotencyKey: "k\(n)",
                                        occurredAt: Instant(microsecondsSinceEpoch: 0))
                                ])
                        )
                    }
                    for result in AppendStatements.appendGroup(on: connection, requests) { _ = try result.get() }
                }
            }
        }
        try await appendGroups(0..<250)
        try await EventIndexScans.flush(pool)
        let superuser = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1)
        try await EventIndexScans.reset(superuser)
        try await appendGroups(250..<275)
        try await EventIndexScans.flush(pool)
        let scans = try await EventIndexScans.counts(superuser)
        #expect(scans["events_idempotency_lookup"] ?? 0 >= 25, "\(scans)")
        #expect(scans["events_stream_version_key"] ?? 0 >= 200, "\(scans)")  // the heads, and the previous hashes
        #expect(scans["events_app_transaction_order"] == 0, "\(scans)")
        #expect(scans["events_pkey"] == 0, "\(scans)")
        #expect(try await superuser.query("SELECT count(*) FROM ledger.events").first?.decode(Int64.self, at: 0) == 1_100)
        await superuser.shutdown()
        await pool.shutdown()
    }
}
