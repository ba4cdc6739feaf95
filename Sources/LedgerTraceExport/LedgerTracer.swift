import Logging
import Tracing

/// The ledger's tracer: decides sampling, gives each span its W3C ids, and records sampled spans into a `SpanQueue`
/// that `OTLPTraceExporter` drains. It exists because swift-otel 1.x hands every recorded span to its tracer's task
/// and then to its batch processor's actor through two async streams; under load that hand-over cost a sampled status
/// read about twice its untraced server CPU (Benchmarks/README.md, "What tracing costs"). Here a span is a struct,
/// recording is one allocation and a lock, and ending it appends to a locked array.
///
/// An unsampled span never records: a root gets fresh ids (so its children know the trace is not sampled, and what it
/// passes on says so), and a child of an unsampled span reuses its parent's context (no ids, no allocation).
package final class LedgerTracer: Tracer {
    package typealias Span = LedgerSpan

    package let sampler: TraceSampler
    package let queue: SpanQueue

    package init(sampler: TraceSampler, queue: SpanQueue) {
        self.sampler = sampler
        self.queue = queue
    }

    package func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> InstrumentationContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> LedgerSpan {
        var context = context()
        if context.isTracingSuppressed { return LedgerSpan(context: context, recording: nil) }
        let parent = context.spanContext
        var random = SystemRandomNumberGenerator()
        let traceID = parent?.traceID ?? TraceID.random(using: &random)
        let sampled = sampler.samples(traceID, parent: parent)
        if !sampled, let parent, !parent.isSampled { return LedgerSpan(context: context, recording: nil) }

        var spanID: UInt64 = random.next()
        if spanID == 0 { spanID = 1 }
        let spanContext = SpanContext(
            traceID: traceID, spanID: spanID, parentSpanID: parent?.spanID ?? 0, isSampled: sampled,
            traceState: parent?.traceState ?? "")
        context.spanContext = spanContext
        guard sampled else { return LedgerSpan(context: context, recording: nil) }
        let recording = LedgerSpan.Recording(
            name: operationName, spanContext: spanContext, kind: kind,
            startNanoseconds: instant().nanosecondsSinceEpoch, queue: queue)
        return LedgerSpan(context: context, recording: recording)
    }

    /// Asks the exporter to send what is queued now rather than at its next tick.
    package func forceFlush() { queue.requestExport() }

    package func inject<Carrier, Inject: Injector>(_ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let spanContext = context.spanContext else { return }
        injector.inject(spanContext.traceparent, forKey: "traceparent", into: &carrier)
        if !spanContext.traceState.isEmpty { injector.inject(spanContext.traceState, forKey: "tracestate", into: &carrier) }
    }

    /// Reads `traceparent` (and `tracestate`); a malformed `traceparent` is ignored, as W3C Trace Context says, and
    /// nothing about the carrier is logged.
    package func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract)
    where Extract.Carrier == Carrier {
        guard let traceparent = extractor.extract(key: "traceparent", from: carrier),
            let spanContext = SpanContext(traceparent: traceparent, traceState: extractor.extract(key: "tracestate", from: carrier) ?? "")
        else { return }
        context.spanContext = spanContext
    }

    /// `trace_id` and `span_id` of the current span, for every log line written inside one.
    package static let loggingMetadata = Logger.MetadataProvider {
        guard let spanContext = ServiceContext.current?.spanContext else { return [:] }
        return ["trace_id": .string(spanContext.traceID.hex), "span_id": .string(hex(spanContext.spanID))]
    }
}
