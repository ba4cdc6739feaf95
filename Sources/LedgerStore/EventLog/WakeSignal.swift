import Synchronization

/// A wake-up flag with at most one waiter: `fire` wakes the waiter, or makes the next `wait` return at once.
/// Workers wait on it between catch-ups; NOTIFY fires it.
///
/// A wait's timeout wakes that wait only. It used to call `fire` when its timer was cancelled too (a
/// cancelled `Task.sleep` returns early), so every wait ended by a notification left the flag set, the next
/// wait returned at once, and so on: an idle projection worker spun at hundreds of empty catch-ups a second.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var lastWait: UInt64 = 0
        /// The newest wait whose timeout passed (possibly before it had started waiting).
        var expired: UInt64 = 0
    }

    private let state = Mutex(State())

    func fire() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Returns when fired (or already fired since the last wait) or after `timeout`; its timer is finished
    /// when it returns, so nothing of this wait reaches the next one.
    func wait(timeout: Duration) async {
        let id = state.withLock { state in
            state.lastWait += 1
            return state.lastWait
        }
        let timer = Task { [self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return } // cancelled: the wait is over
            expire(id)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.pending || state.expired >= id {
                    state.pending = false
                    return true
                }
                state.waiter = (id, continuation)
                return false
            }
            if ready { continuation.resume() }
        }
        timer.cancel()
        await timer.value
    }

    /// The timeout of wait `id`: wakes that wait if it is the one waiting, and never sets the flag.
    private func expire(_ id: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.expired = max(state.expired, id)
            guard let waiter = state.waiter, waiter.id == id else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// For tests: whether a `fire` is waiting to be consumed, and whether a wait is waiting.
    var isPending: Bool { state.withLock { $0.pending } }
    var isWaiting: Bool { state.withLock { $0.waiter != nil } }
}
