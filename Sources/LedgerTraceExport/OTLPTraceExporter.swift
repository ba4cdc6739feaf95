import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Tracing

/// Drains the `SpanQueue` and posts each batch to the OTLP/HTTP endpoint: when a batch fills, every
/// `OTEL_BSP_SCHEDULE_DELAY`, when a flush is asked for, and once more at graceful shutdown (so a one-shot command's
/// spans are not lost). A refused or failed post is logged with its status and the number of spans, and the spans are
/// dropped: traces are diagnostics, never worth holding up or growing the service.
package final class OTLPTraceExporter: Service {
    package let configuration: TraceExportConfiguration
    package let queue: SpanQueue
    private let logger: Logger

    package init(configuration: TraceExportConfiguration, queue: SpanQueue, logger: Logger) {
        self.configuration = configuration
        self.queue = queue
        self.logger = logger
    }

    package func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            // At least 10 ms between ticks: OTEL_BSP_SCHEDULE_DELAY=0 must not make the timer spin.
            group.addTask { [queue, delay = max(configuration.scheduleDelay, .milliseconds(10))] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: delay)
                    queue.requestExport()
                }
            }
            await withGracefulShutdownHandler {
                for await _ in queue.batchesFull { await exportQueued() }
            } onGracefulShutdown: { [queue] in
                queue.close()
            }
            group.cancelAll()
        }
        await exportQueued()
    }

    /// What is queued now, batch by batch; spans ended meanwhile wait for the next wake, so a drain always ends.
    package func exportQueued() async {
        var left = queue.count
        repeat {
            let (spans, dropped) = queue.takeBatch()
            left -= spans.count
            if dropped > 0 {
                logger.warning(
                    "trace spans dropped: the export queue was full (OTEL_BSP_MAX_QUEUE_SIZE)",
                    metadata: ["otel.dropped_spans": "\(dropped)"])
            }
            guard !spans.isEmpty else { return }
            await post(spans)
        } while left > 0
    }

    private func post(_ spans: [FinishedSpan]) async {
        let request = OTLPTraceRequest(resource: configuration.resource, scopeName: "subscription-ledger", spans: spans)
        var http = HTTPClientRequest(url: configuration.endpoint)
        http.method = .POST
        switch configuration.encoding {
        case .protobuf:
            http.headers.add(name: "Content-Type", value: "application/x-protobuf")
            http.body = .bytes(ByteBuffer(bytes: request.protobuf))
        case .json:
            http.headers.add(name: "Content-Type", value: "application/json")
            http.body = .bytes(ByteBuffer(bytes: request.json))
        }
        for (name, value) in configuration.headers { http.headers.add(name: name, value: value) }
        // The HTTP client traces its requests through the bootstrapped tracer: the export's own are suppressed.
        var untraced = ServiceContext.topLevel
        untraced.isTracingSuppressed = true
        await ServiceContext.$current.withValue(untraced) { await send(http, spans: spans.count) }
    }

    private func send(_ http: HTTPClientRequest, spans: Int) async {
        do {
            let response = try await HTTPClient.shared.execute(http, timeout: TimeAmount(configuration.requestTimeout))
            // The body is read to the end so that the connection is reused; the collector's words are not logged.
            _ = try? await response.body.collect(upTo: 1 << 20)
            if !(200..<300).contains(response.status.code) {
                logger.warning(
                    "the OTLP endpoint refused spans", metadata: ["http.status": "\(response.status.code)", "otel.spans": "\(spans)"])
            }
        } catch {
            logger.warning("could not send spans to the OTLP endpoint", metadata: ["error": "\(error)", "otel.spans": "\(spans)"])
        }
    }
}
