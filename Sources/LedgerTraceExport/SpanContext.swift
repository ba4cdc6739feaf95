import LedgerTracing
import Tracing

/// A span's identity as W3C Trace Context carries it: the trace, the span, its parent, whether the trace is sampled,
/// and the vendors' `tracestate`. It lives in the `ServiceContext` of the span and of everything the span's work does.
package struct SpanContext: Sendable, Hashable {
    package var traceID: TraceID
    package var spanID: UInt64
    /// The span this one is a child of, 0 for a root.
    package var parentSpanID: UInt64
    package var isSampled: Bool
    /// The caller's `tracestate`, kept verbatim and passed on ("" when there is none).
    package var traceState: String

    package init(traceID: TraceID, spanID: UInt64, parentSpanID: UInt64 = 0, isSampled: Bool, traceState: String = "") {
        self.traceID = traceID
        self.spanID = spanID
        self.parentSpanID = parentSpanID
        self.isSampled = isSampled
        self.traceState = traceState
    }

    /// `00-{trace id}-{span id}-{flags}`.
    package var traceparent: String {
        "00-\(traceID.hex)-\(hex(spanID))-\(isSampled ? "01" : "00")"
    }

    /// The context a well-formed `traceparent` names (its span is the parent of the next span started under it), or
    /// nil when the text is not one (`TraceContext.isWellFormed`).
    package init?(traceparent: String, traceState: String = "") {
        guard TraceContext.isWellFormed(traceparent) else { return nil }
        let parts = traceparent.split(separator: "-", omittingEmptySubsequences: false)
        guard let high = UInt64(parts[1].prefix(16), radix: 16), let low = UInt64(parts[1].suffix(16), radix: 16),
            let span = UInt64(parts[2], radix: 16), let flags = UInt8(parts[3], radix: 16)
        else { return nil }
        self.init(traceID: TraceID(high: high, low: low), spanID: span, isSampled: flags & 1 == 1, traceState: traceState)
    }
}

/// A 16-byte trace id as two big-endian halves.
package struct TraceID: Sendable, Hashable {
    package var high: UInt64
    package var low: UInt64

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A random id that is never all zeros (W3C: the all-zero id is invalid).
    package static func random<Generator: RandomNumberGenerator>(using generator: inout Generator) -> TraceID {
        var id = TraceID(high: generator.next(), low: generator.next())
        if id.high == 0 && id.low == 0 { id.low = 1 }
        return id
    }

    package var hex: String { LedgerTraceExport.hex(high) + LedgerTraceExport.hex(low) }

    package var bytes: [UInt8] { bigEndianBytes(high) + bigEndianBytes(low) }
}

/// 16 lower-case hex digits.
package func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
}

package func bigEndianBytes(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
}

enum SpanContextKey: ServiceContextKey {
    typealias Value = SpanContext
    static var nameOverride: String? { "ledger-span-context" }
}

/// Marks work that must make no span: the exporter's own requests (each would be a span to export, and exporting it
/// another request: a loop that never drains the queue). OpenTelemetry's SDKs keep the same "suppress
/// instrumentation" flag in their context.
enum TracingSuppressedKey: ServiceContextKey {
    typealias Value = Bool
    static var nameOverride: String? { "ledger-tracing-suppressed" }
}

extension ServiceContext {
    /// Whether spans started under this context are left unrecorded, whatever the sampler says.
    package var isTracingSuppressed: Bool {
        get { self[TracingSuppressedKey.self] ?? false }
        set { self[TracingSuppressedKey.self] = newValue }
    }

    /// The span this context belongs to, when one of the ledger's tracer started it (or a caller's `traceparent` named it).
    package var spanContext: SpanContext? {
        get { self[SpanContextKey.self] }
        set { self[SpanContextKey.self] = newValue }
    }
}
