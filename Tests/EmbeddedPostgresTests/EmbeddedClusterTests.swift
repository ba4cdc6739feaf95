import EmbeddedPostgres
import Foundation
import PostgresClient
import Testing

@Suite struct EmbeddedClusterTests {
    /// start → write → stop → start again on the same folder: the data is still there, under a new port.
    @Test func restartOnTheSameFolderKeepsTheData() throws {
        let directory = NSTemporaryDirectory() + "ledger-embedded-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cluster = EmbeddedCluster(directory: directory, installation: try PostgresInstallation.locate(),
                                      options: .init(unsafeFastWrites: true))
        let first = try cluster.start()
        #expect(first.startedHere)
        try first.ensureDatabase("ledger")
        let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: first.connectionString(database: "ledger")))
        try connection.execute("CREATE TABLE kept (value text); INSERT INTO kept VALUES ('survives restarts')")

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
        let reopened = try PostgresConnection.connect(PostgresConfiguration(connectionString: second.connectionString(database: "ledger")))
        #expect(try reopened.query("SELECT value FROM kept").first?.decode(String.self, at: 0) == "survives restarts")
    }

    @Test func missingBinariesSayWhatToInstall() {
        #expect {
            _ = try PostgresInstallation.locate(environment: ["PATH": "/nonexistent"], pgConfig: nil, debianRoot: "/nonexistent")
        } throws: { error in
            "\(error)".contains("apt-get install postgresql")
        }
    }
}
