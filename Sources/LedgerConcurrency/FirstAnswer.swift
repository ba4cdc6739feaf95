import Synchronization

/// The first of several results to arrive; later ones are ignored. With `value(timeout:onExpiry:)` it is "the
/// first of this or a deadline", shared by the request timeout and the workers' wake-up signal.
package final class FirstAnswer<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiter: CheckedContinuation<Result<Value, any Error>, Never>?
    }

    private let state = Mutex(State())

    package init() {}

    /// Gives `result`; returns whether it was the first (and so the answer).
    @discardableResult
    package func give(_ result: Result<Value, any Error>) -> Bool {
        let (first, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Result<Value, any Error>, Never>?) in
            guard state.result == nil else { return (false, nil) }
            state.result = result
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(returning: result)
        return first
    }

    package var value: Result<Value, any Error> {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    /// The first answer, or `onExpiry()` once `timeout` has passed. The timer is cancelled as soon as an answer
    /// comes and is finished when this returns: nothing of the deadline outlives the wait (a timer left sleeping
    /// held each request's memory for the whole timeout; one that fired when cancelled woke the next wait).
    package func value(timeout: Duration, onExpiry: @escaping @Sendable () -> Result<Value, any Error>) async -> Result<Value, any Error> {
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return } // cancelled: an answer came
            give(onExpiry())
        }
        let result = await value
        timer.cancel()
        await timer.value
        return result
    }
}
