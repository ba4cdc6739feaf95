import Hummingbird
import LedgerStore
import Logging
import PostgresClient
import ServiceLifecycle

/// The HTTP service: routes, middleware, and the server around them.
public enum LedgerApplication {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public init(host: String = "127.0.0.1", port: Int = 8080) {
            self.host = host
            self.port = port
        }
    }

    /// The router, separate from the application so route tests run it in-process. Without `api` only the
    /// operational routes are served.
    public static func makeRouter(readiness: ReadinessCheck, api: LedgerAPI? = nil) -> Router<BasicRequestContext> {
        LedgerMetrics.bootstrap()
        let router = Router()
        let routes = RouteTable(router: router, timeout: api?.configuration.requestTimeout ?? .seconds(30))
        // Outermost first: every response (errors included) gets a request id, is counted, and is JSON.
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: ErrorMiddleware(routes: routes.known))
        OperationalRoutes(readiness: readiness).register(on: routes)
        if let api {
            SeedRoutes(api: api).register(on: routes)
            AdminRoutes(api: api).register(on: routes)
            AppRoutes(api: api).register(on: routes)
            UserRoutes(api: api).register(on: routes)
            UserCommandRoutes(api: api).register(on: routes)
            InvoiceRoutes(api: api).register(on: routes)
        }
        return router
    }

    /// Serves until SIGINT / SIGTERM, then shuts down gracefully (in-flight requests finish).
    /// `services` run beside the server and stop with it (for example `DigestService`).
    public static func run(configuration: Configuration, readiness: ReadinessCheck, api: LedgerAPI?, services: [any Service] = [],
                           logger: Logger) async throws {
        try await make(configuration: configuration, readiness: readiness, api: api, services: services, logger: logger).runService()
    }

    public static func make(configuration: Configuration, readiness: ReadinessCheck, api: LedgerAPI?, services: [any Service] = [],
                            logger: Logger) -> some ApplicationProtocol {
        Application(
            router: makeRouter(readiness: readiness, api: api),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "subscription-ledger"),
            services: services,
            logger: logger
        )
    }
}
