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
