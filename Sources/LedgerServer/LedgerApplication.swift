import Hummingbird
import LedgerStore
import Logging
import PostgresClient
import ServiceLifecycle

/// The HTTP service. This issue serves liveness and readiness; the API routes arrive with later issues.
public enum LedgerApplication {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public init(host: String = "127.0.0.1", port: Int = 8080) {
            self.host = host
            self.port = port
        }
    }

    /// The router, separate from the application so route tests run it in-process.
    public static func makeRouter(readiness: ReadinessCheck) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: RequestIDMiddleware())
        // Liveness: the process answers; says nothing about the database (restarting would not fix it).
        router.get("/health") { _, _ in StatusBody(status: "ok") }
        // Readiness: the database answers and every migration is applied; load balancers route on this.
        router.get("/ready") { _, _ -> Response in
            let status = await readiness.check()
            return try JSONResponse.make(status: status.isReady ? .ok : .serviceUnavailable, body: status)
        }
        return router
    }

    /// Serves until SIGINT / SIGTERM, then shuts down gracefully (in-flight requests finish).
    /// `services` run beside the server and stop with it (for example `DigestService`).
    public static func run(configuration: Configuration, readiness: ReadinessCheck, services: [any Service] = [],
                           logger: Logger) async throws {
        try await make(configuration: configuration, readiness: readiness, services: services, logger: logger).runService()
    }

    public static func make(configuration: Configuration, readiness: ReadinessCheck, services: [any Service] = [],
                            logger: Logger) -> some ApplicationProtocol {
        Application(
            router: makeRouter(readiness: readiness),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "subscription-ledger"),
            services: services,
            logger: logger
        )
    }
}

struct StatusBody: ResponseCodable {
    var status: String
}
