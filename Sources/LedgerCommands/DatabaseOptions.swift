import ArgumentParser
import EmbeddedPostgres
import Foundation
import LedgerStore
import Logging
import PostgresClient

/// Where the database is: `--database-url` / `DATABASE_URL`, or else the embedded cluster under `--data-dir` /
/// `LEDGER_DATA_DIR` (default: see `EmbeddedCluster.defaultDirectory`).
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "PostgreSQL URL or keyword string (default: $DATABASE_URL; unset: embedded PostgreSQL).")
    var databaseURL: String?

    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Folder of the embedded PostgreSQL (default: $LEDGER_DATA_DIR, /var/lib/subscription-ledger as root, else "
                + "~/.local/share/subscription-ledger)."))
    var dataDirectory: String?

    static let embeddedDatabaseName = "ledger"

    var explicitURL: String? {
        if let databaseURL, !databaseURL.isEmpty { return databaseURL }
        if let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty { return url }
        return nil
    }

    /// Runs `body` with a connection string; starts (and afterwards stops) the embedded cluster when no URL is
    /// given and it is not already running.
    func withDatabase<T>(logger: Logger, _ body: (String) async throws -> T) async throws -> T {
        if let url = explicitURL { return try await body(url) }
        let cluster = try embeddedCluster(logger: logger)
        let running = try cluster.start()
        do {
            try running.ensureDatabase(Self.embeddedDatabaseName)
            let value = try await body(running.connectionString(database: Self.embeddedDatabaseName))
            if running.startedHere {
                logger.info("stopping the embedded PostgreSQL")
                try cluster.stopAfterClientsLeave()
                logger.info("embedded PostgreSQL stopped")
            }
            return value
        } catch {
            if running.startedHere { try? cluster.stopAfterClientsLeave() }
            throw error
        }
    }

    func embeddedCluster(logger: Logger) throws -> EmbeddedCluster {
        EmbeddedCluster(
            directory: dataDirectory ?? EmbeddedCluster.defaultDirectory(),
            installation: try PostgresInstallation.locate(), logger: logger)
    }

    /// Migrates and opens the service pool, plus an owner pool for operator work.
    func withLedger<T>(
        logger: Logger, poolSize: Int = 4, buildingReadModels: Bool = true,
        _ body: (_ service: PostgresPool, _ owner: PostgresPool, _ migrations: [Migration]) async throws -> T
    ) async throws -> T {
        try await withDatabase(logger: logger) { url in
            let migrations = try SchemaLocation.migrations()
            let service = try await LedgerDatabase.open(
                connectionString: url, poolSize: poolSize, migrations: migrations,
                buildingReadModels: buildingReadModels, logger: logger)
            let owner = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1, logger: logger)
            do {
                let value = try await body(service, owner, migrations)
                await service.shutdown()
                await owner.shutdown()
                return value
            } catch {
                await service.shutdown()
                await owner.shutdown()
                throw error
            }
        }
    }
}
