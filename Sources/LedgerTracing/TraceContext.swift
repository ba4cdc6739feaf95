import Tracing

/// A trace's context as W3C header text, for what carries a trace out of the process or across time: an event's
/// metadata (so that the webhook sent for it joins the trace of the request that recorded it), and the headers of
/// webhook and App Store Server API requests. Everything here asks the bootstrapped instrument (`LedgerCommands`'
/// `Observability`); while tracing is off that is the no-op instrument, which writes and reads nothing.
public enum TraceContext {
    /// Whether a tracer is bootstrapped (checked where wiring costs something even for a no-op span: the request span).
    public static var isEnabled: Bool { !(InstrumentationSystem.instrument is NoOpInstrument || InstrumentationSystem.instrument is NoOpTracer) }

    /// `traceparent` and `tracestate` of `context`, as the instrument writes them; empty without a context or a tracer.
    public static func headers(of context: InstrumentationContext? = .current) -> [(String, String)] {
        injected(context).map { ($0.key, $0.value) }
    }

    /// The `traceparent` of `context` when its trace is sampled, else nil: an id nobody records is not worth keeping.
    public static func sampledTraceparent(of context: InstrumentationContext? = .current) -> String? {
        guard let traceparent = injected(context)["traceparent"], isSampled(traceparent) else { return nil }
        return traceparent
    }

    /// Runs `body` inside a span named `name` when a trace is current, and with no span (nil) outside one, so an
    /// untraced step (tracing off, or a request not sampled) pays one task-local read.
    public static func inSpan<T>(_ name: String, _ body: ((any Span)?) async throws -> T) async rethrows -> T {
        guard InstrumentationContext.current != nil else { return try await body(nil) }
        return try await withSpan(name) { span in try await body(span) }
    }

    private static func injected(_ context: InstrumentationContext?) -> [String: String] {
        var carrier: [String: String] = [:]
        if let context { InstrumentationSystem.instrument.inject(context, into: &carrier, using: DictionaryCarrier()) }
        return carrier
    }

    /// A context whose parent is the span that `traceparent` names; without one (or with a malformed one), a new trace.
    public static func context(traceparent: String?) -> InstrumentationContext {
        var context = InstrumentationContext.topLevel
        if let traceparent {
            InstrumentationSystem.instrument.extract(["traceparent": traceparent], into: &context, using: DictionaryCarrier())
        }
        return context
    }

    /// W3C `version-traceid-parentid-flags`: sampled when the flags' lowest bit is set.
    static func isSampled(_ traceparent: String) -> Bool {
        guard let flags = traceparent.split(separator: "-").last, flags.count == 2, let value = UInt8(flags, radix: 16) else {
            return false
        }
        return value & 1 == 1
    }
}

struct DictionaryCarrier: Injector, Extractor {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
}
