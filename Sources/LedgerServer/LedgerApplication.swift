import Hummingbird
import HummingbirdWebSocket
import LedgerBilling
import LedgerConsole
import LedgerOperators
import LedgerStore
import LedgerTracing
import Logging
import PostgresClient
import ServiceLifecycle
import UnixSignals

/// The HTTP service: routes, middleware, and the server around them.
package enum LedgerApplication {
    package struct Configuration: Sendable {
        package var host: String
        package var port: Int
        package init(host: String = "127.0.0.1", port: Int = 8080) {
            self.host = host
            self.port = port
        }
    }

    /// The router, separate from the application so route tests run it in-process. Without `api` only the
    /// operational routes are served. Each group of routes gets only what it uses, and states its authentication
    /// once (`Authentication.swift`).
    package static func makeRouter(readiness: ReadinessCheck, api: LedgerAPI? = nil) -> Router<LedgerRequestContext> {
        LedgerMetrics.bootstrap()
        let router = Router(context: LedgerRequestContext.self)
        let routes = RouteTable(router: router, timeout: api?.configuration.requestTimeout ?? .seconds(30))
        // Outermost first: every request is traced (when a tracer is bootstrapped), every response (errors included)
        // gets a request id, is counted, and is JSON.
        if TraceContext.isEnabled { router.add(middleware: RequestTracingMiddleware()) }
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: ErrorMiddleware(routes: routes.known))
        OperationalRoutes(readiness: readiness).register(on: routes)
        guard let api else { return router }
        router.add(middleware: ReadTokenMiddleware(primaryWithReplica: api.reads.replica == nil ? nil : api.pool))
        let clock = api.configuration.clock
        let signing = StatusSigning(keys: api.statusKeys)
        StatusKeyRoutes(keys: api.statusKeys).register(on: routes)
        SeedRoutes(
            recorder: api.recorder, reads: api.reads, cache: api.tenancyCache, cookie: api.cookie, body: api.body,
            readYourWrites: api.readYourWrites, signing: signing, clock: clock
        ).register(on: routes, auth: api.auth)
        AdminRoutes(tenancy: api.tenancy, cache: api.tenancyCache, body: api.body).register(on: routes, auth: api.auth)
        AppRoutes(
            tenancy: api.tenancy, cache: api.tenancyCache, body: api.body, recorder: api.recorder,
            readYourWrites: api.readYourWrites
        ).register(on: routes, auth: api.auth)
        UserRoutes(reads: api.reads, cache: api.tenancyCache, signing: signing, clock: clock).register(on: routes, auth: api.auth)
        LiveRoutes(hub: api.live).register(on: routes, auth: api.auth)
        ErasureRoutes(erasure: api.erasure, live: api.live, statusCache: api.statusCache, clock: clock).register(on: routes, auth: api.auth)
        UserCommandRoutes(recorder: api.recorder, body: api.body, readYourWrites: api.readYourWrites)
            .register(on: routes, auth: api.auth)
        GrantRoutes(recorder: api.recorder, cache: api.tenancyCache, body: api.body, readYourWrites: api.readYourWrites, clock: clock)
            .register(on: routes, auth: api.auth)
        WebhookRoutes(store: api.webhooks, cache: api.tenancyCache, body: api.body, settings: api.configuration.webhooks)
            .register(on: routes, auth: api.auth)
        AppStoreRoutes(
            clients: api.configuration.appStore, cache: api.tenancyCache, body: api.body, recorder: api.recorder,
            logger: api.logger
        ).register(on: routes, auth: api.auth)
        InvoiceRoutes(invoices: InvoiceStore(pool: api.pool, clock: clock), tenancy: api.tenancy, body: api.body).register(on: routes, auth: api.auth)
        RevenueRoutes(revenue: RevenueQueries(pool: api.pool)).register(on: routes, auth: api.auth)
        OperatorRecordRoutes(record: api.auth.record).register(on: routes, auth: api.auth)
        // The console (`/console`, Sources/LedgerConsole): HTML pages with their own sessions, outside the JSON API's
        // route table and OpenAPI document.
        let cache = api.tenancyCache
        let stores = Console.Stores(
            sessions: ConsoleSessionStore(pool: api.pool), record: OperatorActionLog(pool: api.pool), tokens: OperatorTokenStore(pool: api.pool),
            recorder: api.recorder,
            users: api.users, trends: MonthlyTrendQueries(pool: api.pool),
            logStatus: LogStatusQueries(pool: api.pool), revenue: RevenueQueries(pool: api.pool), tenancy: api.tenancy,
            invoices: InvoiceStore(pool: api.pool, clock: clock), webhooks: api.webhooks,
            operators: api.configuration.masterKey.map { OperatorStore(pool: api.pool, keys: $0) })
        Console(
            stores: stores,
            settings: Console.Settings(
                adminToken: api.configuration.adminToken,
                sessionLifetimeSeconds: api.configuration.consoleSessionLifetime, idleSeconds: api.configuration.consoleIdleLifetime),
            clock: clock, logger: api.logger, tenancyChanged: { cache.invalidate(.apiKeys) }
        ).register(on: router)
        return router
    }

    /// Serves until SIGINT / SIGTERM, then shuts down gracefully (in-flight requests finish).
    /// `services` run beside the server and stop with it (for example `DigestService`).
    package static func run(
        configuration: Configuration, readiness: ReadinessCheck, api: LedgerAPI?, services: [any Service] = [],
        logger: Logger
    ) async throws {
        let services = services.map { LoggedService(name: LoggedService.name(of: $0), service: $0, logger: logger) as any Service }
        let application = make(configuration: configuration, readiness: readiness, api: api, services: services, logger: logger)
        // As `runService()` does, with the notice last: a group tells its services in reverse order.
        let group = ServiceGroup(
            configuration: .init(
                services: [application, ShutdownNotice(logger: logger)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        logger.info("HTTP server and background services stopped")
    }

    package static func make(
        configuration: Configuration, readiness: ReadinessCheck, api: LedgerAPI?, services: [any Service] = [],
        logger: Logger
    ) -> some ApplicationProtocol {
        let router = makeRouter(readiness: readiness, api: api)
        // HTTP/1.1 with the WebSocket upgrade of the live streams, routed by the same router (and its authentication);
        // a first request that does not parse is answered too (`FirstRequestGuard`).
        return Application(
            router: router,
            server: server(router: router),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "subscription-ledger"),
            services: services,
            logger: logger
        )
    }
}
