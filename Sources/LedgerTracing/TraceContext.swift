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
        incoming(traceparent: traceparent, tracestate: nil) ?? .topLevel
    }

    /// The context an incoming request's `traceparent` and `tracestate` headers name, or nil when they name none a
    /// caller could mean: W3C Trace Context says a receiver ignores a malformed `traceparent` and starts a new trace.
    /// Only well-formed values reach the instrument: an instrument may log a carrier it fails to read (swift-otel did,
    /// and for a request that was its headers, with their credentials).
    public static func incoming(traceparent: String?, tracestate: String?) -> InstrumentationContext? {
        guard let traceparent, isWellFormed(traceparent) else { return nil }
        var carrier = ["traceparent": traceparent]
        if let tracestate, tracestate.utf8.count <= 512, tracestate.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            carrier["tracestate"] = tracestate
        }
        var context = InstrumentationContext.topLevel
        InstrumentationSystem.instrument.extract(carrier, into: &context, using: DictionaryCarrier())
        return context
    }

    /// `version-traceid-parentid-flags` in lower-case hex (2-32-16-2); a version other than 00 may carry more fields
    /// after these; the all-zero ids and version ff are invalid.
    package static func isWellFormed(_ traceparent: String) -> Bool {
        let parts = traceparent.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].count == 2, parts[1].count == 32, parts[2].count == 16, parts[3].count == 2,
            parts.prefix(4).allSatisfy({ $0.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) } })
        else { return false }
        let version = String(decoding: parts[0], as: UTF8.self)
        guard version != "ff", version != "00" || parts.count == 4 else { return false }
        return !parts[1].allSatisfy { $0 == 0x30 } && !parts[2].allSatisfy { $0 == 0x30 }
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
