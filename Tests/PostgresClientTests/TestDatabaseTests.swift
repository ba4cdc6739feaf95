import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

@Suite struct TestDatabaseTests {
    /// A transaction left open holds the commit horizon below a newer event: the wait ends in an error naming that
    /// event's transaction and the horizon it saw, instead of returning as if the log were final.
    @Test func waitForHorizonThrowsNamingWhatItWaitedForAndWhatItSaw() async throws {
        // A server of its own: the open transaction below would hold back the horizon of every other test.
        let url = try await TestDatabase.makeDatabase(prefix: "horizon", on: .horizonHolder)
        let writer = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
        try writer.execute(
            """
            CREATE SCHEMA ledger;
            CREATE TABLE ledger.events (transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id())
            """)
        let holder = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
        try holder.execute("BEGIN")
        let held = try holder.query("SELECT pg_current_xact_id()").first!.decode(UInt64.self, at: 0)
        try writer.execute("INSERT INTO ledger.events DEFAULT VALUES")
        let newest = try writer.query("SELECT max(transaction_id) FROM ledger.events").first!.decode(UInt64.self, at: 0)
        #expect(newest > held)

        await #expect { try await TestDatabase.waitForHorizon(url, timeout: .milliseconds(200)) } throws: { error in
            guard case .horizonNotReached(let transaction, let horizon, _) = error as? TestDatabaseError else { return false }
            return transaction == newest && horizon <= held && "\(error)".contains("transaction \(newest)")
        }
        try holder.execute("COMMIT")
        try await TestDatabase.waitForHorizon(url)
    }
}
