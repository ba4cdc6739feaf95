import AppStoreServerAPI
import AppStoreSync
import AppStoreVerification
import ArgumentParser
import Foundation
import LedgerJobs
import LedgerPrivacy
import LedgerServer
import LedgerStore
import LedgerTenancy
import LedgerWebhooks
import Logging
import PostgresClient
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

    @OptionGroup var masterKey: MasterKeyOptions

    @Option(help: "Most events a projection applies per transaction (default: $LEDGER_PROJECTION_BATCH_SIZE or 500; 1–10000).")
    var projectionBatchSize: Int?

    @Option(help: "Seconds between signed log digests (default: $LEDGER_DIGEST_INTERVAL or 3600).")
    var digestInterval: Int?

    @Option(help: "Largest request body in bytes (default: $LEDGER_MAX_BODY_BYTES or 1048576).")
    var maxBodyBytes: Int?

    @Option(help: "Seconds before a request is answered 504 (default: $LEDGER_REQUEST_TIMEOUT or 30).")
    var requestTimeout: Int?

    @Option(help: "Minutes a console sign-in lasts (default: $LEDGER_CONSOLE_SESSION_MINUTES or 480).")
    var consoleSessionMinutes: Int?

    @Option(help: "Minutes a console session lasts without a request (default: $LEDGER_CONSOLE_IDLE_MINUTES or 30).")
    var consoleIdleMinutes: Int?

    @Option(
        name: .customLong("apple-root"),
        help: ArgumentHelp(
            "Root certificate files App Store data must chain to; replaces Apple's (default: $LEDGER_APPLE_ROOTS or "
                + "Apple's roots; `default` adds Apple's back)."))
    var appleRoots: [String] = []

    @Option(
        name: .customLong("appstore-api-config"),
        help: "The App Store Server API settings file (default: $LEDGER_APPSTORE_API_CONFIG; none: no backfill, no reconciliation).")
    var appStoreAPIConfig: String?

    mutating func run() async throws {
        let logger = CommandLogging.logger("ledger.serve")
        // Before the pool, the workers and the stores make their metrics: swift-metrics binds each to the backend in
        // place when it is made (the status cache's counted into nothing when the router set the backend up).
        LedgerMetrics.bootstrap()
        // Before the router is made: it installs the request span only when a tracer is bootstrapped.
        let tracing = try Observability.tracing(logger: logger)
        let environment = ProcessInfo.processInfo.environment
        let host = host ?? environment["LEDGER_HOST"] ?? "127.0.0.1"
        guard let port = port ?? Int(environment["LEDGER_PORT"] ?? "8080"), (0...65535).contains(port) else {
            throw ValidationError("LEDGER_PORT must be a port number (0–65535)")
        }
        let interval = digestInterval ?? Int(environment["LEDGER_DIGEST_INTERVAL"] ?? "3600") ?? 3600
        guard interval > 0 else { throw ValidationError("the digest interval must be a positive number of seconds") }
        let batchSize = projectionBatchSize ?? Int(environment["LEDGER_PROJECTION_BATCH_SIZE"] ?? "500") ?? 0
        guard (1...10_000).contains(batchSize) else { throw ValidationError("the projection batch size must be between 1 and 10000 events") }
        let apiConfiguration = try apiConfiguration(environment: environment)
        let jobs = try Self.jobSettings(environment: environment)
        if apiConfiguration.adminToken == nil {
            logger.warning("LEDGER_ADMIN_TOKEN is not set: the admin API (/v1/admin) answers 401 until the server is started with it")
        }
        let database = database
        let digest = digest
        let masterKey = masterKey
        try await database.withLedger(logger: logger, poolSize: poolSize) { service, _, migrations in
            var apiConfiguration = apiConfiguration
            // Once the data folder exists (the default key lives there, made on first start).
            apiConfiguration.masterKey = try masterKey.source(database: database)
            // Before anything that must be shut down is made (the webhook sender's HTTP client).
            if let clients = apiConfiguration.appStore {
                try await Self.checkAppStoreSettings(clients, tenancy: TenancyStore(pool: service), logger: logger)
            }
            // Loaded once the data folder exists (the embedded default key lives there).
            let key = try digest.key(database: database)
            if key == nil {
                logger.warning(
                    """
                    no digest signing key (--signing-key / LEDGER_SIGNING_KEY_FILE): the log is hash-chained but no signed digests\
                     are taken and users cannot be erased (erasure certificates are signed with it)
                    """)
            }
            apiConfiguration.digestKey = key
            // The worker tells the API of each batch it commits: read-your-writes waits wake on it.
            let progress = ProjectionProgress()
            // The exporter first: a group stops its services in reverse order, so it flushes after the others end.
            var services: [any Service] = tracing.map { [$0] } ?? []
            services.append(
                ProjectionService(
                    worker: ProjectionWorker(
                        pool: service,
                        runners: ProjectionCatalog.runners(batchSize: batchSize), progress: progress, logger: logger)))
            if let key { services.append(DigestService(pool: service, key: key, interval: .seconds(interval), jobs: jobs, logger: logger)) }
            // Status reads on a streaming replica of the database, when one is given (README, "Several instances").
            let replica = environment["LEDGER_READ_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }.map {
                LedgerDatabase.replica(connectionString: $0, like: service, poolSize: poolSize, logger: logger)
            }
            defer { if let replica { Task { await replica.shutdown() } } }
            let api = try await LedgerAPI.make(
                pool: service, replica: replica, configuration: apiConfiguration, progress: progress,
                logger: logger)
            services.append(OperationsProbe(pool: service, logger: logger))
            services.append(TenancyCacheService(api: api, logger: logger))
            services.append(ErasureNotices(api: api, logger: logger))
            services.append(LiveService(hub: api.live))
            if api.statusCache.isEnabled { services.append(StatusCacheService(cache: api.statusCache)) }
            services.append(
                WebhookService(
                    pool: service, identities: api.identities, settings: apiConfiguration.webhooks, progress: progress, logger: logger))
            if let clients = apiConfiguration.appStore { services.append(AppStoreService(api: api, clients: clients, jobs: jobs, logger: logger)) }
            logger.info("serving", metadata: ["host": "\(host)", "port": "\(port)"])
            try await LedgerApplication.run(
                configuration: .init(host: host, port: port),
                readiness: ReadinessCheck(pool: service, migrations: migrations),
                api: api, services: services, logger: logger)
            logger.info("closing the database connections")
        }
    }
}

extension ServeCommand {
    func apiConfiguration(environment: [String: String]) throws -> LedgerAPI.Configuration {
        let maxBody = maxBodyBytes ?? Int(environment["LEDGER_MAX_BODY_BYTES"] ?? "") ?? (1 << 20)
        guard maxBody >= 1024 else { throw ValidationError("the body limit must be at least 1024 bytes") }
        let timeout = requestTimeout ?? Int(environment["LEDGER_REQUEST_TIMEOUT"] ?? "") ?? 30
        guard timeout > 0 else { throw ValidationError("the request timeout must be a positive number of seconds") }
        let sessionMinutes = consoleSessionMinutes ?? Int(environment["LEDGER_CONSOLE_SESSION_MINUTES"] ?? "") ?? 480
        guard (1...10_080).contains(sessionMinutes) else { throw ValidationError("a console session lasts 1 to 10080 minutes (a week)") }
        let idleMinutes = consoleIdleMinutes ?? Int(environment["LEDGER_CONSOLE_IDLE_MINUTES"] ?? "") ?? 30
        guard (1...1440).contains(idleMinutes) else { throw ValidationError("a console session may be idle 1 to 1440 minutes (a day)") }
        let roots: TrustRoots
        do {
            roots = try TrustRoots.resolve(paths: appleRoots, environment: environment)
        } catch {
            throw ValidationError("Apple roots: \(error.message)")
        }
        let appStore: AppStoreAPISettings
        do {
            appStore = try AppStoreAPISettings.load(path: appStoreAPIConfig, environment: environment)
        } catch {
            throw ValidationError("App Store Server API settings: \(error.message)")
        }
        var configuration = LedgerAPI.Configuration(
            adminToken: environment["LEDGER_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 },
            roots: roots, maxBodyBytes: maxBody, requestTimeout: .seconds(timeout),
            webhooks: try Self.webhookSettings(environment: environment),
            appStore: appStore.apps.isEmpty ? nil : AppStoreClients(settings: appStore, logger: CommandLogging.logger("ledger.appstore-api")))
        configuration.consoleSessionLifetime = Int64(sessionMinutes) * 60
        configuration.consoleIdleLifetime = Int64(idleMinutes) * 60
        if let wait = try Self.environmentNumber("LEDGER_READ_REPLICA_WAIT_MS", 0...60_000, in: environment) {
            configuration.replicaWait = .milliseconds(wait)
        }
        if let megabytes = try Self.environmentNumber("LEDGER_STATUS_CACHE_MB", 0...65_536, in: environment) {
            configuration.statusCache.budgetBytes = Int(megabytes) << 20
        }
        if let staleness = try Self.environmentNumber("LEDGER_STATUS_CACHE_STALENESS_MS", 10...60_000, in: environment) {
            configuration.statusCache.staleness = .milliseconds(staleness)
        }
        return configuration
    }

    /// Each configured app exists and its key loads, or `serve` stops at start with what to fix (not at 3 a.m.).
    static func checkAppStoreSettings(_ clients: AppStoreClients, tenancy: TenancyStore, logger: Logger) async throws {
        for appID in clients.configuredApps {
            guard let app = try await tenancy.app(id: appID) else {
                throw ValidationError("App Store Server API settings name app \(appID), which the ledger does not have")
            }
            do {
                _ = try clients.client(for: app)
            } catch {
                throw ValidationError(error.description)
            }
        }
        logger.info("App Store Server API configured", metadata: ["apps": "\(clients.configuredApps.joined(separator: ","))"])
    }

    /// A whole number from the environment within `range`; nil when unset.
    static func environmentNumber(_ name: String, _ range: ClosedRange<Int64>, in environment: [String: String]) throws -> Int64? {
        guard let text = environment[name], !text.isEmpty else { return nil }
        guard let value = Int64(text), range.contains(value) else {
            throw ValidationError("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// How the jobs that run on one instance at a time move between instances (README, "Several instances").
    static func jobSettings(environment: [String: String]) throws -> ExclusiveJob.Settings {
        var settings = ExclusiveJob.Settings()
        if let retry = try environmentNumber("LEDGER_JOB_RETRY_SECONDS", 1...3600, in: environment) { settings.retry = .seconds(retry) }
        return settings
    }

    /// Webhook settings from the environment (docs/webhooks.md lists them).
    static func webhookSettings(environment: [String: String]) throws -> WebhookSettings {
        func number(_ name: String, _ range: ClosedRange<Int64>) throws -> Int64? { try environmentNumber(name, range, in: environment) }
        var settings = WebhookSettings()
        switch environment["LEDGER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES"] ?? "" {
        case "", "0", "false": break
        case "1", "true": settings.allowPrivateAddresses = true
        default: throw ValidationError("LEDGER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES must be 1 or 0")
        }
        if let first = try number("LEDGER_WEBHOOK_RETRY_FIRST_MS", 1...3_600_000) { settings.schedule.first = .milliseconds(first) }
        if let cap = try number("LEDGER_WEBHOOK_RETRY_CAP_SECONDS", 1...86_400) { settings.schedule.cap = .seconds(cap) }
        if let window = try number("LEDGER_WEBHOOK_RETRY_WINDOW_SECONDS", 1...30 * 86_400) { settings.schedule.window = .seconds(window) }
        if let disable = try number("LEDGER_WEBHOOK_DISABLE_AFTER_SECONDS", 60...365 * 86_400) { settings.disableAfter = .seconds(disable) }
        if let lease = try number("LEDGER_WEBHOOK_LEASE_SECONDS", 1...3600) { settings.leaseDuration = .seconds(lease) }
        if let concurrency = try number("LEDGER_WEBHOOK_CONCURRENCY", 1...256) { settings.concurrencyPerEndpoint = Int(concurrency) }
        return settings
    }
}

/// `ledger migrate`: applies pending migrations, builds the read models that have never been built (a database
/// upgraded from the JSON states of schema 6, or a read model this version adds) from the log, and says what it did.
/// With `--seal-history`, then rewrites a log written before pseudonyms (`SealHistory`, docs/erasure.md "Upgrading").
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Apply pending schema migrations (and, with --seal-history, seal a log written before pseudonyms).")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var digest: DigestOptions
    @OptionGroup var masterKey: MasterKeyOptions

    @Flag(
        help: ArgumentHelp(
            "Rewrite the events recorded before pseudonyms: users named by pseudonyms, personal fields sealed, the chain recomputed "
                + "and bound to the old one by a signed statement.",
            discussion: "Stop every `ledger serve` first. Needs the digest signing key and the master key (see docs/erasure.md)."))
    var sealHistory = false

    mutating func run() async throws {
        let logger = CommandLogging.logger("ledger.migrate")
        let (database, digest, masterKey, sealHistory) = (database, digest, masterKey, sealHistory)
        try await database.withDatabase(logger: logger) { url in
            let migrations = try SchemaLocation.migrations()
            let applied = try SchemaMigrator(migrations: migrations, logger: logger).migrate(on: try PostgresConnectionFactory.connect(url))
            print(
                applied.isEmpty
                    ? "database is up to date (\(migrations.count) migrations)"
                    : "applied \(applied.count) migration(s): " + "\(applied.map(String.init).joined(separator: ", "))")
            // As `serve` would at its start (`LedgerDatabase.open`): the upgrade is done when `migrate` returns.
            let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1, logger: logger)
            let built: [String]
            do {
                built = try await ProjectionReplay.rebuildMissing(pool: pool, logger: logger)
                await pool.shutdown()
            } catch {
                await pool.shutdown()
                throw error
            }
            if !built.isEmpty { print("built \(built.joined(separator: ", ")) from the log") }
            guard sealHistory else { return }
            guard let key = try digest.key(database: database) else {
                throw CommandFailure(
                    "--seal-history signs a statement with the digest key: pass --signing-key FILE or set LEDGER_SIGNING_KEY_FILE")
            }
            let summary = try await SealHistory.run(
                url: url, box: SecretBox(keys: try masterKey.source(database: database)), key: key, logger: logger)
            let outcome = summary.outcome
            print(
                outcome.eventsRewritten == 0 && summary.operatorRowsRewritten == 0
                    ? "the log names every user by a pseudonym and holds no personal field in clear: nothing to rewrite"
                        + (outcome.deliveriesSealed == 0
                            ? "" : "; sealed \(outcome.deliveriesSealed) webhook delivery(ies) that named their user by id")
                    : "rewrote \(outcome.eventsRewritten) event(s) of \(summary.apps) app(s): \(outcome.usersRenamed) user(s) named by "
                        + "pseudonyms, \(outcome.streamsRechained) stream(s) rechained, \(outcome.deliveriesSealed) webhook delivery(ies) "
                        + "sealed, \(summary.operatorRowsRewritten) operator record row(s) renamed; signed the rewrite statement and new "
                        + "digests; rebuilt the read models")
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
