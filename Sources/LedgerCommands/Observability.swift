import Foundation
import Logging
import LedgerTraceExport
import ServiceLifecycle
import Tracing

/// Traces by OTLP when the standard `OTEL_*` variables ask for them, and nothing otherwise.
///
/// Tracing is on when `OTEL_TRACES_EXPORTER` is `otlp`, or when an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT`,
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) and `OTEL_TRACES_EXPORTER` is not `none`; `OTEL_SDK_DISABLED=true` turns it
/// off. The ledger's own tracer and OTLP/HTTP exporter (`LedgerTraceExport`) read the rest: protocol (`http/protobuf`
/// by default, or `http/json`), sampler, `OTEL_BSP_*` batching, headers, timeout, `OTEL_SERVICE_NAME` and resource
/// attributes. It replaced swift-otel, whose tracer hands each recorded span through two task hops: that made a
/// sampled status read cost twice its server CPU, and 10% sampling cost reads 11% (Benchmarks/README.md, "What
/// tracing costs"). Only traces: metrics stay on `/metrics` (Prometheus) and logs on standard error, whose lines then
/// carry `trace_id` and `span_id`.
///
/// Off, nothing is bootstrapped: the request middleware is not installed, steps outside a trace make no span, and a
/// statement checks one task-local. `Benchmarks/run.sh` measures both.
enum Observability {
    static func tracesRequested(_ environment: [String: String]) -> Bool {
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" { return false }
        if let exporter = environment["OTEL_TRACES_EXPORTER"]?.lowercased(), !exporter.isEmpty { return exporter != "none" }
        return ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].contains { !(environment[$0] ?? "").isEmpty }
    }

    /// The export the environment asks for (nil: tracing off), or what is wrong with its variables.
    static func configuration(_ environment: [String: String]) -> Result<TraceExportConfiguration?, TraceExportConfiguration.Invalid> {
        guard tracesRequested(environment) else { return .success(nil) }
        return TraceExportConfiguration.configuration(from: environment).map { $0 }
    }

    /// Puts the current span's `trace_id` and `span_id` on each log line while traces are exported.
    static func loggingMetadataProvider(_ environment: [String: String]) -> Logger.MetadataProvider? {
        (try? configuration(environment).get()) == nil ? nil : LedgerTracer.loggingMetadata
    }

    /// The exporter's service, when traces were requested: bootstrapped once per process, run beside the work (its
    /// graceful shutdown flushes the spans still queued). A configuration `TraceExportConfiguration` refuses stops
    /// the command with its message.
    static func tracing(logger: Logger) throws -> (any Service)? {
        let exporter = try bootstrap.get()
        if let exporter { logger.info("exporting traces by OTLP", metadata: ["otel.endpoint": .string(exporter.configuration.endpointDescription)]) }
        return exporter
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

    private static let bootstrap: Result<OTLPTraceExporter?, any Error> = Result {
        guard let configuration = try configuration(ProcessInfo.processInfo.environment).get() else { return nil }
        let queue = SpanQueue(capacity: configuration.maxQueueSize, batchSize: configuration.maxExportBatchSize)
        InstrumentationSystem.bootstrap(LedgerTracer(sampler: configuration.sampler, queue: queue))
        return OTLPTraceExporter(configuration: configuration, queue: queue, logger: CommandLogging.logger("ledger.otel"))
    }
}
