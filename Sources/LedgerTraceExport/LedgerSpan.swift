import Synchronization
import Tracing

/// A span of the ledger's tracer. Unsampled it is only its context (no allocation beyond it, nothing recorded);
/// sampled it also holds the `Recording` that collects what the span's work says about itself until it ends.
package struct LedgerSpan: Tracing.Span {
    package let context: InstrumentationContext
    let recording: Recording?

    package var isRecording: Bool { recording?.isRecording ?? false }

    package var operationName: String {
        get { recording?.state.withLock { $0.name } ?? "" }
        nonmutating set { recording?.update { $0.name = newValue } }
    }

    package var attributes: SpanAttributes {
        get { recording?.state.withLock { $0.attributes } ?? [:] }
        nonmutating set { recording?.update { $0.attributes = newValue } }
    }

    package func setStatus(_ status: SpanStatus) {
        recording?.update { state in
            // OpenTelemetry: Ok is final; Unset never overrides.
            if state.status?.code != .ok { state.status = status }
        }
    }

    package func addEvent(_ event: SpanEvent) {
        recording?.update { $0.events.append(event) }
    }

    package func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        guard let recording else { return }
        var described = attributes
        described["exception.type"] = String(describing: type(of: error))
        described["exception.message"] = String(describing: error)
        let event = SpanEvent(name: "exception", at: instant(), attributes: described)
        recording.update { $0.events.append(event) }
    }

    package func addLink(_ link: SpanLink) {
        guard let linked = link.context.spanContext else { return }
        recording?.update { $0.links.append(FinishedSpan.Link(context: linked, attributes: link.attributes)) }
    }

    package func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        recording?.end(at: instant().nanosecondsSinceEpoch)
    }
}

extension LedgerSpan {
    /// What a sampled span has collected; ended once, then handed to the queue the exporter drains.
    final class Recording: Sendable {
        struct State {
            var name: String
            var attributes: SpanAttributes = [:]
            var events: [SpanEvent] = []
            var links: [FinishedSpan.Link] = []
            var status: SpanStatus?
            var ended = false
        }

        let spanContext: SpanContext
        let kind: SpanKind
        let startNanoseconds: UInt64
        let queue: SpanQueue
        let state: Mutex<State>

        init(name: String, spanContext: SpanContext, kind: SpanKind, startNanoseconds: UInt64, queue: SpanQueue) {
            self.spanContext = spanContext
            self.kind = kind
            self.startNanoseconds = startNanoseconds
            self.queue = queue
            self.state = Mutex(State(name: name))
        }

        var isRecording: Bool { state.withLock { !$0.ended } }

        /// Changes the state while the span is open; after its end nothing changes what was exported.
        func update(_ change: (inout State) -> Void) {
            state.withLock { state in
                if !state.ended { change(&state) }
            }
        }

        func end(at nanoseconds: UInt64) {
            let finished: State? = state.withLock { state in
                guard !state.ended else { return nil }
                state.ended = true
                return state
            }
            guard let finished else { return }
            queue.append(
                FinishedSpan(
                    context: spanContext, name: finished.name, kind: kind, startNanoseconds: startNanoseconds,
                    endNanoseconds: max(nanoseconds, startNanoseconds), attributes: finished.attributes,
                    events: finished.events, links: finished.links, status: finished.status))
        }
    }
}
