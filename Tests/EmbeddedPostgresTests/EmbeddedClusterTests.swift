import LedgerDomain
import EmbeddedPostgres
import Foundation
import LedgerStore
import PostgresClient
import Testing

@Suite struct EmbeddedClusterTests {
    /// start → append events → stop → start again on the same folder: the events are still there.
    @Test func restartOnTheSameFolderKeepsTheEvents() async throws {
        let directory = NSTemporaryDirectory() + "ledger-embedded-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cluster = EmbeddedCluster(
            directory: directory, installation: try PostgresInstallation.locate(),
            options: .init(unsafeFastWrites: true))
        let first = try cluster.start()
        #expect(first.startedHere)
        try first.ensureDatabase("ledger")
        let pool = try await LedgerDatabase.open(
            connectionString: first.connectionString(database: "ledger"), poolSize: 1,
            migrations: try SchemaLocation.migrations())
        let appended = try await EventStore(pool: pool).append(
            app: "app", stream: "s",
            events: [
                NewEvent(type: "kept", payload: #"{"survives": "restarts"}"#, idempotencyKey: "k1", occurredAt: LedgerClock.system.now())
            ])
        await pool.shutdown()
        let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: first.connectionString(database: "ledger")))

        // A second start while running reuses the server instead of starting another.
        let again = try cluster.start()
        #expect(!again.startedHere)
        #expect(again.port == first.port)

        try cluster.stop()
        #expect(throws: PostgresError.self) { try connection.query("SELECT 1") }

        let second = try cluster.start()
        defer { try? cluster.stop() }
        #expect(second.startedHere)
        #expect(second.password == first.password)
        let reopened = try await LedgerDatabase.open(
            connectionString: second.connectionString(database: "ledger"), poolSize: 1,
            migrations: try SchemaLocation.migrations())
        let events = try await EventStore(pool: reopened).readStream(app: "app", stream: "s")
        #expect(events.map(\.position) == appended.positions)
        #expect(events.first?.payload == #"{"survives": "restarts"}"#)
        await reopened.shutdown()
    }

    @Test func missingBinariesSayWhatToInstall() {
        #expect {
            _ = try PostgresInstallation.locate(environment: ["PATH": "/nonexistent"], pgConfig: nil, debianRoot: "/nonexistent")
        } throws: { error in
            "\(error)".contains("apt-get install postgresql")
        }
    }
}
