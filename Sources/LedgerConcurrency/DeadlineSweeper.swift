import NIOCore
import NIOPosix
import Synchronization

/// Deadlines that are checked together, every `resolution`, by one repeating timer: for the many waits that are
/// long and almost never expire (a request's timeout), where a timer of their own cost each one a scheduled and a
/// cancelled task on an event loop, with a wake-up of that loop for both.
package final class DeadlineSweeper: Sendable {
    /// The process's sweeper, at 50 ms: what `FirstAnswer.value(timeout:)` uses for deadlines of a second or more.
    package static let shared = DeadlineSweeper(resolution: .milliseconds(50))

    private struct Entry {
        var deadline: NIODeadline
        var expire: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        var timer: RepeatedTask?
    }

    private let resolution: TimeAmount
    private let state = Mutex(State())

    package init(resolution: TimeAmount) { self.resolution = resolution }

    /// Calls `expire` once, at most `resolution` after `delay`, unless `cancel` comes first. Returns the id to
    /// cancel with.
    package func schedule(in delay: TimeAmount, _ expire: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = Entry(deadline: .now() + delay, expire: expire)
            if state.timer == nil {
                state.timer = MultiThreadedEventLoopGroup.singleton.any().scheduleRepeatedTask(initialDelay: resolution, delay: resolution) {
                    [weak self] task in
                    guard let self else { return task.cancel() }
                    self.sweep()
                }
            }
            return id
        }
    }

    package func cancel(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// Deadlines registered and not yet expired or cancelled.
    package var pendingCount: Int { state.withLock { $0.entries.count } }

    /// Expires what is due; stops the timer when nothing is left (the next `schedule` starts it again).
    private func sweep() {
        let now = NIODeadline.now()
        let due = state.withLock { state -> [@Sendable () -> Void] in
            var due: [@Sendable () -> Void] = []
            for (id, entry) in state.entries where entry.deadline <= now {
                due.append(entry.expire)
                state.entries[id] = nil
            }
            if state.entries.isEmpty {
                state.timer?.cancel()
                state.timer = nil
            }
            return due
        }
        for expire in due { expire() }
    }
}
