import LedgerServerTestSupport
import LedgerTraceExport
import InMemoryLogging
import Logging
import ServiceLifecycle
import Testing
import Tracing

@Suite struct OTLPTraceExporterTests {
    static func configuration(endpoint: String, encoding: TraceExportConfiguration.Encoding) throws -> TraceExportConfiguration {
        var configuration = try TraceExportConfiguration.configuration(
            from: ["OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_BSP_SCHEDULE_DELAY": "3600000", "OTEL_EXPORTER_OTLP_TIMEOUT": "1000"]
        ).get()
        configuration.encoding = encoding
        return configuration
    }

    /// Polls `condition` until it holds or `seconds` pass (what is awaited happens on another task).
    static func eventually(seconds: Int = 30, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    @Test(arguments: [TraceExportConfiguration.Encoding.protobuf, .json])
    func aFullBatchIsSentAtOnceAndWhatIsLeftAtShutdown(encoding: TraceExportConfiguration.Encoding) async throws {
        let receiver = OTLPReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        let queue = SpanQueue(capacity: 100, batchSize: 3)
        let tracer = LedgerTracer(sampler: .alwaysOn, queue: queue)
        let exporter = OTLPTraceExporter(
            configuration: try Self.configuration(endpoint: receiver.endpoint, encoding: encoding), queue: queue,
            logger: Logger(label: "test.otel"))
        let group = ServiceGroup(configuration: .init(services: [exporter], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        let running = Task { try await group.run() }

        // The schedule delay is an hour: only the full batch can have woken the exporter.
        for number in 1...3 { tracer.startSpan("step \(number)", context: .topLevel).end() }
        #expect(await Self.eventually { receiver.spans.count == 3 }, "\(receiver.spans)")
        tracer.startSpan("last", context: .topLevel).end()
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(receiver.spans.map(\.name).sorted() == ["last", "step 1", "step 2", "step 3"])
        #expect(Set(receiver.spans.map(\.traceID)).count == 4)
    }

    @Test func anUnreachableCollectorCostsTheSpansAndAWarningNothingMore() async throws {
        let logs = InMemoryLogHandler()
        let logger = Logger(label: "test.otel") { _ in logs }
        let queue = SpanQueue(capacity: 10, batchSize: 10)
        let tracer = LedgerTracer(sampler: .alwaysOn, queue: queue)
        // Port 9 (discard) on loopback: nothing listens there, so every connection attempt is refused until the
        // export's timeout (1 s here).
        let exporter = OTLPTraceExporter(
            configuration: try Self.configuration(endpoint: "http://127.0.0.1:9", encoding: .protobuf), queue: queue, logger: logger)
        for number in 1...4 { tracer.startSpan("step \(number)", context: .topLevel).end() }
        await exporter.exportQueued()
        #expect(queue.count == 0)
        #expect(
            logs.entries.contains { $0.message.description.contains("could not send spans") && $0.metadata["otel.spans"] == "4" },
            "\(logs.entries)")
    }
}
