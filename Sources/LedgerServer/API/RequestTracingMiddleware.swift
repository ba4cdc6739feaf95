import HTTPTypes
import Hummingbird
import LedgerTracing
import Logging
import Tracing

/// The server span of every request, parent of the spans of its steps (verification, appends, the group commit, the
/// wait for projections, each statement). An incoming W3C `traceparent` makes it a child of the caller's span.
///
/// Hummingbird's `TracingMiddleware` records the path, query and user agent; ours records the route template
/// (`/v1/users/{id}`), never the path, since paths and queries name app users (personal data stays out of traces).
/// Only the `traceparent` and `tracestate` headers reach the instrument, and only when well formed
/// (`TraceContext.incoming`): an instrument may log a carrier it fails to read, which would put credentials in the log.
/// The span ends when the answer is handed to the server, so a live stream's span covers its opening, not its life.
/// Installed only when a tracer is bootstrapped (`TraceContext.isEnabled`): with tracing off a request pays nothing.
///
/// A request whose trace is not sampled runs outside any trace: nothing beneath it would be recorded, so its steps
/// make no span at all (each only checks the task-local context), and with 10% sampled the other nine requests cost
/// little more than with tracing off (`Benchmarks/README.md`). Its logs then carry no trace id (no trace exists).
struct RequestTracingMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let parent =
            TraceContext.incoming(traceparent: request.headers[traceparentField], tracestate: request.headers[tracestateField])
            ?? InstrumentationContext.current ?? .topLevel
        let method = request.method.rawValue
        let span = startSpan(method, context: parent, ofKind: .server)
        defer { span.end() }
        guard span.isRecording else { return try await next(request, context) }
        span.attributes["http.request.method"] = method
        do {
            return try await InstrumentationContext.withValue(span.context) {
                let response = try await next(request, context)
                finish(
                    span, context: context, status: Int(response.status.code), requestID: response.headers[RequestIDMiddleware<Context>.headerName])
                // An access line at debug level, inside the span: its `trace_id` and `span_id` tie the logs to the trace.
                context.logger.debug(
                    "answered", metadata: ["route": .string(context.endpointPath ?? "(none)"), "status": .stringConvertible(response.status.code)])
                return response
            }
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            finish(span, context: context, status: Int(status), requestID: nil)
            span.recordError(error)
            throw error
        }
    }

    private func finish(_ span: any Span, context: Context, status: Int, requestID: String?) {
        let route = context.endpointPath
        span.operationName = route.map { "\(span.operationName) \($0)" } ?? "\(span.operationName) (no route)"
        span.attributes["http.route"] = route
        span.attributes["http.response.status_code"] = status
        span.attributes["ledger.request_id"] = requestID
        if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
    }
}

// Made once (a generic type cannot hold static stored properties); both names are valid header tokens.
private let traceparentField = HTTPField.Name("traceparent")!
private let tracestateField = HTTPField.Name("tracestate")!
