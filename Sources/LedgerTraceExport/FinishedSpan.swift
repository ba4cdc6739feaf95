import Tracing

/// An ended span as it is exported.
package struct FinishedSpan: Sendable {
    package struct Link: Sendable {
        package var context: SpanContext
        package var attributes: SpanAttributes
    }

    package var context: SpanContext
    package var name: String
    package var kind: SpanKind
    package var startNanoseconds: UInt64
    package var endNanoseconds: UInt64
    package var attributes: SpanAttributes
    package var events: [SpanEvent]
    package var links: [Link]
    package var status: SpanStatus?
}
