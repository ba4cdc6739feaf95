import Synchronization

/// Ended spans waiting for the exporter: appended under a lock by whichever thread ends a span, drained in batches by
/// the exporter's one task. No span crosses a task boundary on its own; the exporter is woken once per full batch
/// (and by its timer), never per span. Beyond `capacity` a span is dropped and counted, as OpenTelemetry's batch
/// processor does, so a collector that is down costs memory up to the bound and no more.
package final class SpanQueue: Sendable {
    struct State {
        var spans: [FinishedSpan] = []
        var dropped = 0
    }

    package let capacity: Int
    package let batchSize: Int
    private let state = Mutex(State())
    private let batchFull: AsyncStream<Void>.Continuation
    /// Yields once each time the queue reaches a full batch.
    let batchesFull: AsyncStream<Void>

    package init(capacity: Int, batchSize: Int) {
        self.capacity = max(1, capacity)
        self.batchSize = max(1, min(batchSize, capacity))
        (batchesFull, batchFull) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    package func append(_ span: FinishedSpan) {
        let filledABatch = state.withLock { state -> Bool in
            guard state.spans.count < capacity else {
                state.dropped += 1
                return false
            }
            state.spans.append(span)
            return state.spans.count == batchSize
        }
        if filledABatch { batchFull.yield() }
    }

    /// Up to one batch of the oldest spans, and how many were dropped since the last call.
    package func takeBatch() -> (spans: [FinishedSpan], dropped: Int) {
        state.withLock { state in
            let count = min(batchSize, state.spans.count)
            let batch = Array(state.spans.prefix(count))
            state.spans.removeFirst(count)
            defer { state.dropped = 0 }
            return (batch, state.dropped)
        }
    }

    /// Wakes the exporter now (a flush asked for), whatever the queue holds.
    package func requestExport() { batchFull.yield() }

    package var count: Int { state.withLock { $0.spans.count } }

    /// Ends `batchesFull` (the exporter's last drain follows).
    func close() { batchFull.finish() }
}
