import NIOCore
import NIOPosix
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

    /// The first answer, or `onExpiry()` once `timeout` has passed. A deadline of a second or more is one entry of
    /// `DeadlineSweeper.shared` (expiring up to 50 ms late); a shorter one is a timer of its own on one of NIO's
    /// event loops. Either is cancelled (and so freed) as soon as an answer comes: nothing of it outlives the wait.
    ///
    /// Not `Task.sleep`: on Linux a cancelled sleep returns at once but its dispatch timer stays scheduled until the
    /// original deadline, holding the sleeping task's memory. With a 30 s request timeout that kept about 300 bytes
    /// per request alive for 30 s: the server's RSS grew by some 50 MB per 8 s of `/health` under load (heaptrack:
    /// the leaks at exit were one `Task.sleep` timer per request).
    package func value(timeout: Duration, onExpiry: @escaping @Sendable () -> Result<Value, any Error>) async -> Result<Value, any Error> {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let delay: TimeAmount = nanoseconds.overflow ? .hours(24 * 365) : .nanoseconds(nanoseconds.partialValue + attoseconds / 1_000_000_000)
        if delay >= .seconds(1) {
            let id = DeadlineSweeper.shared.schedule(in: delay) { self.give(onExpiry()) }
            let result = await value
            DeadlineSweeper.shared.cancel(id)
            return result
        }
        let deadline = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: delay) { self.give(onExpiry()) }
        let result = await value
        deadline.cancel()
        return result
    }
}
