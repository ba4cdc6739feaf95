@testable import LedgerTraceExport
import Logging
import Testing
import Tracing

@Suite struct LedgerTracerTests {
    static func tracer(_ sampler: TraceSampler = .parentBased(root: .alwaysOn), capacity: Int = 100) -> LedgerTracer {
        LedgerTracer(sampler: sampler, queue: SpanQueue(capacity: capacity, batchSize: capacity))
    }

    struct Carrier: Injector, Extractor {
        func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
        func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
    }

    @Test func aSampledSpanAndItsChildAreRecordedWithTheirParentageWhatTheySaidAndTheirTimes() throws {
        let tracer = Self.tracer()
        let root = tracer.startSpan("GET /v1/users/{id}", context: .topLevel, ofKind: .server)
        let rootContext = try #require(root.context.spanContext)
        #expect(root.isRecording && rootContext.isSampled && rootContext.parentSpanID == 0)
        let child = tracer.startSpan("SELECT", context: root.context, ofKind: .client)
        child.attributes["db.system"] = "postgresql"
        child.attributes["db.rows"] = 3
        child.addEvent(SpanEvent(name: "retry"))
        child.setStatus(SpanStatus(code: .error, message: "refused"))
        child.recordError(TestError())
        child.end()
        child.attributes["late"] = "ignored"
        child.end()
        root.setStatus(SpanStatus(code: .ok))
        root.setStatus(SpanStatus(code: .error))
        root.end()

        let (spans, dropped) = tracer.queue.takeBatch()
        #expect(dropped == 0)
        try #require(spans.count == 2)
        let (ended, parent) = (spans[0], spans[1])
        #expect(ended.name == "SELECT" && ended.kind == .client)
        #expect(ended.context.traceID == rootContext.traceID && ended.context.parentSpanID == rootContext.spanID)
        #expect(ended.context.spanID != rootContext.spanID && ended.context.spanID != 0)
        #expect(ended.attributes["db.system"]?.toSpanAttribute() == .string("postgresql"))
        #expect(ended.attributes["db.rows"]?.toSpanAttribute() == .int64(3))
        #expect(ended.attributes["late"] == nil)
        #expect(ended.events.map(\.name) == ["retry", "exception"])
        #expect(ended.events[1].attributes["exception.type"]?.toSpanAttribute() == .string("TestError"))
        #expect(ended.status == SpanStatus(code: .error, message: "refused"))
        #expect(ended.startNanoseconds <= ended.endNanoseconds && ended.startNanoseconds > 1_700_000_000 * 1_000_000_000)
        #expect(parent.context == rootContext && parent.status?.code == .ok)
        #expect(!child.isRecording)
    }

    @Test func anUnsampledTraceRecordsNothingAndItsChildrenReuseTheRootsContext() throws {
        let tracer = Self.tracer(.parentBased(root: .alwaysOff))
        let root = tracer.startSpan("GET /productsStatus", context: .topLevel, ofKind: .server)
        let rootContext = try #require(root.context.spanContext)
        #expect(!root.isRecording && !rootContext.isSampled && rootContext.spanID != 0)
        let child = tracer.startSpan("SELECT", context: root.context)
        #expect(child.context.spanContext == rootContext)
        child.attributes["db.system"] = "postgresql"
        #expect(child.attributes.isEmpty)
        child.end()
        root.end()
        #expect(tracer.queue.count == 0)
        // What it passes on says "not sampled", so the next service drops the trace too.
        var carrier: [String: String] = [:]
        tracer.inject(child.context, into: &carrier, using: Carrier())
        #expect(carrier["traceparent"] == "00-\(rootContext.traceID.hex)-\(hex(rootContext.spanID))-00")
    }

    @Test func aCallersTraceparentAndTracestateBecomeTheParentAndArePassedOn() throws {
        let tracer = Self.tracer(.parentBased(root: .alwaysOff))
        let caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        var context = InstrumentationContext.topLevel
        tracer.extract(["traceparent": caller, "tracestate": "vendor=abc"], into: &context, using: Carrier())
        let span = tracer.startSpan("POST /v1/apps/{appID}/notifications", context: context, ofKind: .server)
        let spanContext = try #require(span.context.spanContext)
        #expect(span.isRecording)
        #expect(spanContext.traceID.hex == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(spanContext.parentSpanID == 0x00f0_67aa_0ba9_02b7)
        var carrier: [String: String] = [:]
        tracer.inject(span.context, into: &carrier, using: Carrier())
        #expect(carrier == ["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-\(hex(spanContext.spanID))-01", "tracestate": "vendor=abc"])
    }

    @Test func underASuppressedContextNothingIsRecordedWhateverTheSampler() {
        let tracer = Self.tracer(.alwaysOn)
        var suppressed = InstrumentationContext.topLevel
        suppressed.isTracingSuppressed = true
        let span = tracer.startSpan("POST", context: suppressed, ofKind: .client)
        #expect(!span.isRecording && span.context.spanContext == nil)
        tracer.startSpan("child", context: span.context).end()
        span.end()
        #expect(tracer.queue.count == 0)
    }

    @Test(arguments: [
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "Bearer sk_live_secret"
    ])
    func aMalformedTraceparentIsIgnored(traceparent: String) {
        var context = InstrumentationContext.topLevel
        Self.tracer().extract(["traceparent": traceparent], into: &context, using: Carrier())
        #expect(context.spanContext == nil)
    }

    @Test func logLinesInsideASpanCarryItsIds() throws {
        let tracer = Self.tracer()
        let span = tracer.startSpan("work", context: .topLevel)
        let spanContext = try #require(span.context.spanContext)
        let metadata = ServiceContext.$current.withValue(span.context) { LedgerTracer.loggingMetadata.get() }
        #expect(metadata["trace_id"] == .string(spanContext.traceID.hex))
        #expect(metadata["span_id"] == .string(hex(spanContext.spanID)))
        #expect(ServiceContext.$current.withValue(nil) { LedgerTracer.loggingMetadata.get() }.isEmpty)
    }

    struct TestError: Error {}
}

@Suite struct SpanQueueTests {
    static func span(_ number: UInt64) -> FinishedSpan {
        FinishedSpan(
            context: SpanContext(traceID: TraceID(high: 1, low: number), spanID: number, isSampled: true), name: "span \(number)",
            kind: .internal, startNanoseconds: 1, endNanoseconds: 2, attributes: [:], events: [], links: [], status: nil)
    }

    @Test func beyondItsCapacityASpanIsDroppedAndCountedOnce() {
        let queue = SpanQueue(capacity: 3, batchSize: 2)
        for number in 1...5 { queue.append(Self.span(UInt64(number))) }
        let first = queue.takeBatch()
        #expect(first.spans.map(\.name) == ["span 1", "span 2"] && first.dropped == 2)
        let second = queue.takeBatch()
        #expect(second.spans.map(\.name) == ["span 3"] && second.dropped == 0)
        #expect(queue.takeBatch().spans.isEmpty)
    }

    @Test func aFullBatchWakesTheExporterOnce() async {
        let queue = SpanQueue(capacity: 10, batchSize: 2)
        var wakes = queue.batchesFull.makeAsyncIterator()
        queue.append(Self.span(1))
        queue.append(Self.span(2))  // the batch is full
        queue.append(Self.span(3))
        queue.close()
        #expect(await wakes.next() != nil)
        #expect(await wakes.next() == nil, "one wake for one full batch")
    }
}
