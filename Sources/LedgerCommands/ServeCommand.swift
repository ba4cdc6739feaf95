import ArgumentParser
import Foundation
import LedgerServer
import LedgerStore
import Logging
import ServiceLifecycle

/// `ledger serve`: the HTTP service. Stops gracefully on SIGINT / SIGTERM (and then stops the embedded PostgreSQL
/// it started).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the HTTP service.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Address to listen on (default: $LEDGER_HOST or 127.0.0.1; 0.0.0.0 for every interface).")
    var host: String?

    @Option(help: "Port to listen on (default: $LEDGER_PORT or 8080).")
    var port: Int?

    @Option(help: "PostgreSQL connections (and libpq threads) in the pool.")
    var poolSize: Int = 8

    @OptionGroup var digest: DigestOptions

    @Option(help: "Seconds between signed log digests (default: $LEDGER_DIGEST_INTERVAL or 3600).")
    var digestInterval: Int?

    mutating func run() async throws {
        let logger = CommandLogging.logger("ledger.serve")
        let environment = ProcessInfo.processInfo.environment
        let host = host ?? environment["LEDGER_HOST"] ?? "127.0.0.1"
        guard let port = port ?? Int(environment["LEDGER_PORT"] ?? "8080"), (0...65535).contains(port) else {
            throw ValidationError("LEDGER_PORT must be a port number (0–65535)")
        }
        let interval = digestInterval ?? Int(environment["LEDGER_DIGEST_INTERVAL"] ?? "3600") ?? 3600
        guard interval > 0 else { throw ValidationError("the digest interval must be a positive number of seconds") }
        let database = database
        let digest = digest
        try await database.withLedger(logger: logger, poolSize: poolSize) { service, _, migrations in
            // Loaded once the data folder exists (the embedded default key lives there).
            let key = try digest.key(database: database)
            if key == nil {
                logger.warning("no digest signing key (--signing-key / LEDGER_SIGNING_KEY_FILE): the log is hash-chained but no signed digests are taken")
            }
            var services: [any Service] = [ProjectionService(worker: ProjectionWorker(pool: service, runners: ProjectionCatalog.runners(), logger: logger))]
            if let key { services.append(DigestService(pool: service, key: key, interval: .seconds(interval), logger: logger)) }
            logger.info("serving", metadata: ["host": "\(host)", "port": "\(port)"])
            try await LedgerApplication.run(configuration: .init(host: host, port: port),
                                            readiness: ReadinessCheck(pool: service, migrations: migrations),
                                            services: services, logger: logger)
        }
    }
}

/// `ledger migrate`: applies pending migrations and says what it did.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Apply pending schema migrations.")

    @OptionGroup var database: DatabaseOptions

    mutating func run() async throws {
        let logger = CommandLogging.logger("ledger.migrate")
        try await database.withDatabase(logger: logger) { url in
            let migrations = try SchemaLocation.migrations()
            let connection = try PostgresConnectionFactory.connect(url)
            let applied = try SchemaMigrator(migrations: migrations, logger: logger).migrate(on: connection)
            print(applied.isEmpty ? "database is up to date (\(migrations.count) migrations)" : "applied \(applied.count) migration(s): \(applied.map(String.init).joined(separator: ", "))")
        }
    }
}

import PostgresClient

/// Command-line tools run one operation at a time, so they may use a plain connection on their own thread.
enum PostgresConnectionFactory {
    static func connect(_ url: String) throws -> PostgresConnection {
        try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
    }
}
