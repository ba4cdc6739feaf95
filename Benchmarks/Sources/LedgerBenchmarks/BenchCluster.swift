import EmbeddedPostgres
import Foundation
import LedgerStore
import PostgresClient

/// The one PostgreSQL every figure is measured on, the ledger and the raw references alike: an embedded cluster
/// with the service's default, durable settings (fsync and synchronous commit on), in a temporary folder that is
/// removed at the end.
struct BenchCluster: Sendable {
    static let database = "ledger"
    let cluster: EmbeddedCluster
    let running: EmbeddedCluster.Running

    static func start() throws -> BenchCluster {
        let directory = NSTemporaryDirectory() + "ledger-bench-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        let cluster = EmbeddedCluster(directory: directory, installation: try PostgresInstallation.locate(),
                                      options: .init(maxConnections: 200))
        let running = try cluster.start()
        try running.ensureDatabase(database)
        let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: running.connectionString(database: database)))
        _ = try SchemaMigrator(migrations: try SchemaLocation.migrations()).migrate(on: connection)
        return BenchCluster(cluster: cluster, running: running)
    }

    /// libpq keyword string of the benchmark database, as the superuser (pgbench, psql and the server use it too).
    var url: String { running.connectionString(database: Self.database) }

    func pool(size: Int) -> PostgresPool { PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: size) }

    func connect() throws -> PostgresConnection { try PostgresConnection.connect(PostgresConfiguration(connectionString: url)) }

    func program(_ name: String) -> String { cluster.installation.program(name) }

    func settings() throws -> [String: String] {
        let connection = try connect()
        var settings: [String: String] = [:]
        for name in ["server_version", "shared_buffers", "fsync", "synchronous_commit", "wal_level", "max_wal_size", "work_mem"] {
            settings[name] = try connection.query("SELECT current_setting(\(name))").first?.decode(String.self, at: 0)
        }
        return settings
    }

    func stop() {
        try? cluster.stop()
        try? FileManager.default.removeItem(atPath: cluster.directory)
    }
}
