import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

@Suite struct PostgresPoolTests {
    @Test func neverOpensMoreConnectionsThanItsSize() async throws {
        let url = try await TestDatabase.makeDatabase()
        let name = "pool-\(UUID().uuidString.prefix(8))"
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: url, applicationName: name), size: 2)
        let observer = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1)
        let peak = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await pool.withConnection { connection in
                        // Hold the connection while counting how many sessions the pool has open.
                        try connection.query("SELECT pg_sleep(0.05)")
                        return try connection.query("SELECT count(*) FROM pg_stat_activity WHERE application_name = \(name)")
                            .first?.decode(Int64.self, at: 0) ?? 0
                    }
                }
            }
            return try await group.reduce(0) { max($0, $1) }
        }
        #expect(peak >= 1)
        #expect(peak <= 2)
        await pool.shutdown()
        await observer.shutdown()
    }

    /// Two calls that can only both finish if the pool runs them at the same time: each counts itself in on a
    /// sequence (visible to every session at once, outside transactions) and then waits, inside its statement, until
    /// both have arrived. A pool that ran one call at a time would leave the first waiting for a second that never
    /// starts: it fails at the deadline instead of hanging.
    @Test func runsTwoCallsAtTheSameTime() async throws {
        let url = try await TestDatabase.makeDatabase()
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 2)
        try await pool.query("CREATE SEQUENCE arrivals")
        try await pool.withConnection { connection in
            try connection.execute(
                """
                CREATE FUNCTION rendezvous(parties bigint, deadline interval) RETURNS integer LANGUAGE plpgsql AS $$
                DECLARE
                    started timestamptz := clock_timestamp();
                BEGIN
                    PERFORM nextval('arrivals');
                    WHILE (SELECT last_value FROM arrivals) < parties LOOP
                        IF clock_timestamp() - started > deadline THEN
                            RAISE EXCEPTION 'rendezvous: only % of % sessions arrived within %',
                                (SELECT last_value FROM arrivals), parties, deadline;
                        END IF;
                        PERFORM pg_sleep(0.005);
                    END LOOP;
                    RETURN pg_backend_pid();
                END $$
                """)
        }
        let pids = try await withThrowingTaskGroup(of: Int32.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await pool.query("SELECT rendezvous(2, '30 seconds')").first!.decode(Int32.self, at: 0)
                }
            }
            return try await group.reduce(into: Set<Int32>()) { $0.insert($1) }
        }
        #expect(pids.count == 2)
        await pool.shutdown()
    }

    @Test func replacesAConnectionTheServerKilled() async throws {
        let url = try await TestDatabase.makeDatabase()
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1)
        let admin = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1)
        let pid = try await pool.query("SELECT pg_backend_pid()").first!.decode(Int32.self, at: 0)
        try await admin.query("SELECT pg_terminate_backend(\(pid))")
        // The pooled connection is dead: the next call reports it clearly instead of hanging…
        await #expect { try await pool.query("SELECT 1") } throws: { error in
            (error as? PostgresError)?.isConnectionProblem == true
        }
        // …and the one after runs on a new connection.
        let newPID = try await pool.query("SELECT pg_backend_pid()").first!.decode(Int32.self, at: 0)
        #expect(newPID != pid)
        await pool.shutdown()
        await admin.shutdown()
    }

    @Test func aConnectionLeftInATransactionIsNotReused() async throws {
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: try await TestDatabase.makeDatabase()), size: 1)
        let first = try await pool.withConnection { connection in
            try connection.execute("BEGIN")
            return try connection.query("SELECT pg_backend_pid()").first!.decode(Int32.self, at: 0)
        }
        let second = try await pool.query("SELECT pg_backend_pid()").first!.decode(Int32.self, at: 0)
        #expect(first != second)
        await pool.shutdown()
    }

    /// A write refused because the server is read-only (a primary demoted by a failover) is a connection problem
    /// (the API answers 503) and retires the connection: the next call opens another, which finds the primary.
    @Test func aConnectionToAReadOnlyServerIsNotReused() async throws {
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: try await TestDatabase.makeDatabase()), size: 1)
        try await pool.query("CREATE TABLE t (n int)")
        let first = try await pool.withConnection { connection in
            try connection.execute("SET default_transaction_read_only = on")
            return try connection.query("SELECT pg_backend_pid()").first!.decode(Int32.self, at: 0)
        }
        await #expect { try await pool.query("INSERT INTO t VALUES (1)") } throws: { error in
            (error as? PostgresError)?.isReadOnlyServer == true && (error as? PostgresError)?.isConnectionProblem == true
        }
        let second = try await pool.query("SELECT pg_backend_pid()").first!.decode(Int32.self, at: 0)
        #expect(first != second)
        try await pool.query("INSERT INTO t VALUES (1)")
        await pool.shutdown()
    }

    @Test func listenerReceivesNotifications() async throws {
        let url = try await TestDatabase.makeDatabase()
        let listener = PostgresListener(configuration: PostgresConfiguration(connectionString: url), channels: ["ledger test"])
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1)
        var events = listener.events().makeAsyncIterator()
        #expect(await events.next() == .connected)
        try await pool.query("SELECT pg_notify('ledger test', \("payload ✓"))")
        #expect(await events.next() == .notification(channel: "ledger test", payload: "payload ✓"))
        await listener.stop()
        await pool.shutdown()
    }

    @Test func shutdownFailsLaterCalls() async throws {
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: try await TestDatabase.makeDatabase()), size: 1)
        try await pool.query("SELECT 1")
        await pool.shutdown()
        await #expect(throws: (any Error).self) { try await pool.query("SELECT 1") }
    }
}
