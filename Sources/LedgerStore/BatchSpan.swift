import Tracing

/// The span of work done once for several callers (a group commit, a batch of status reads): the child of the first
/// traced caller, linking the others, so each caller's trace finds the work it joined. Nothing is made when no caller
/// is traced.
enum BatchSpan {
    /// Runs `body` inside the span (`body` gets it when it records, to add attributes), or alone when no caller is
    /// traced; the statements `body` runs are the span's children.
    static func run<T>(_ name: String, callers contexts: [InstrumentationContext], _ body: ((any Span)?) -> T) -> T {
        guard let parent = contexts.first else { return body(nil) }
        let span = startSpan(name, context: parent)
        defer { span.end() }
        if span.isRecording {
            for other in contexts.dropFirst() { span.addLink(SpanLink(context: other, attributes: [:])) }
        }
        return InstrumentationContext.withValue(span.context) { body(span.isRecording ? span : nil) }
    }
}
