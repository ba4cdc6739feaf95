import Foundation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// Traces by OTLP (swift-otel) when the standard `OTEL_*` variables ask for them, and nothing otherwise.
///
/// Tracing is on when `OTEL_TRACES_EXPORTER` names an exporter (`otlp`, `console`), or when an OTLP endpoint is set
/// (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) and `OTEL_TRACES_EXPORTER` is not `none`;
/// `OTEL_SDK_DISABLED=true` turns it off. Everything else is swift-otel's reading of the same variables: protocol
/// (`OTEL_EXPORTER_OTLP_PROTOCOL`, `http/protobuf` by default, or `http/json`), sampler (`OTEL_TRACES_SAMPLER`, e.g.
/// `parentbased_traceidratio` with `OTEL_TRACES_SAMPLER_ARG=0.1`), batching (`OTEL_BSP_*`), `OTEL_SERVICE_NAME`
/// (default `subscription-ledger`) and resource attributes. Only traces: metrics stay on `/metrics` (Prometheus) and
/// logs on standard error, whose lines then carry `trace_id` and `span_id`.
///
/// Off, nothing is bootstrapped: the request middleware is not installed, steps outside a trace make no span, and a
/// statement checks one task-local. `Benchmarks/run.sh` measures both.
enum Observability {
    static func tracesRequested(_ environment: [String: String]) -> Bool {
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" { return false }
        if let exporter = environment["OTEL_TRACES_EXPORTER"]?.lowercased(), !exporter.isEmpty { return exporter != "none" }
        return ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].contains { !(environment[$0] ?? "").isEmpty }
    }

    /// The exporter's service, when traces were requested: bootstrapped once per process, run beside the work (its
    /// graceful shutdown flushes the spans still batched). A configuration swift-otel refuses stops the command.
    static func tracing(logger: Logger) throws -> (any Service)? {
        let service = try bootstrap.get()
        if service != nil { logger.info("exporting traces by OTLP", metadata: ["otel.endpoint": .string(endpointDescription)]) }
        return service
    }

    /// Runs `body` with traces exported while it runs and flushed before it returns (one-shot commands).
    static func traced<T: Sendable>(logger: Logger, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let service = try tracing(logger: logger) else { return try await body() }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            let exporter = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [], logger: logger))
            group.addTask {
                try await exporter.run(); return nil
            }
            let value: T
            do {
                value = try await body()
            } catch {
                await exporter.triggerGracefulShutdown()
                try? await group.waitForAll()
                throw error
            }
            await exporter.triggerGracefulShutdown()
            try await group.waitForAll()
            return value
        }
    }

    private static let bootstrap: Result<(any Service)?, any Error> = Result {
        let environment = ProcessInfo.processInfo.environment
        guard tracesRequested(environment) else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "subscription-ledger"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        // Its own diagnostics go to our log handler (standard error), never to standard output, which carries results.
        configuration.diagnosticLogger = .custom(CommandLogging.logger("ledger.otel"))
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        return backend.service
    }

    private static var endpointDescription: String {
        let environment = ProcessInfo.processInfo.environment
        return environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] ?? environment["OTEL_EXPORTER_OTLP_ENDPOINT"] ?? "the default"
    }
}
