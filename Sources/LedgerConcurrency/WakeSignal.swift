import Synchronization

/// A wake-up flag with at most one waiter: `fire` wakes the waiter, or makes the next `wait` return at once.
/// Workers wait on it between catch-ups; NOTIFY fires it.
///
/// A wait's timeout ends that wait only, never the flag: a cancelled `Task.sleep` returns early, and a timer that
/// fired the flag on cancellation would leave it set after every wait a notification ended, so the next wait would
/// return at once and an idle worker would spin.
package final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: FirstAnswer<Void>?
    }

    private let state = Mutex(State())

    package init() {}

    package func fire() {
        state.withLock { state in
            // A waiter whose timeout has just answered it takes nothing: the flag keeps the fire for the next wait.
            if let waiter = state.waiter {
                state.waiter = nil
                if waiter.give(.success(())) { return }
            }
            state.pending = true
        }
    }

    /// Returns when fired (or already fired since the last wait) or after `timeout`.
    package func wait(timeout: Duration) async {
        let answer = FirstAnswer<Void>()
        let ready = state.withLock { state -> Bool in
            if state.pending {
                state.pending = false
                return true
            }
            state.waiter = answer
            return false
        }
        guard !ready else { return }
        _ = await answer.value(timeout: timeout) { .success(()) }
        state.withLock { state in
            if state.waiter === answer { state.waiter = nil }
        }
    }

    /// For tests: whether a `fire` is waiting to be consumed, and whether a wait is waiting.
    package var isPending: Bool { state.withLock { $0.pending } }
    package var isWaiting: Bool { state.withLock { $0.waiter != nil } }
}
