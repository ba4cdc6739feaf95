import LedgerConcurrency
import Synchronization

/// The checkpoints the projections have committed, as far as this process knows, and the read-your-writes waits on
/// them: a pure state machine (`ProjectionProgress` runs it under a lock and resumes the waits it returns).
package struct ProjectionProgressState: Sendable {
    package enum Registration: Equatable, Sendable {
        /// Every projection has passed the target already.
        case reached
        /// Registered under this id; `advance` returns it once reached.
        case waiting(Int)
    }

    package let projections: Set<String>
    package private(set) var checkpoints: [String: LogCheckpoint] = [:]
    private var waits: [Int: LogCheckpoint] = [:]
    private var nextID = 0

    package init(projections: some Sequence<String>) { self.projections = Set(projections) }

    /// What every projection has applied; nil until each has reported once.
    package var frontier: LogCheckpoint? {
        guard checkpoints.count == projections.count else { return nil }
        return checkpoints.values.min()
    }

    package var waiting: Int { waits.count }

    package mutating func register(_ target: LogCheckpoint) -> Registration {
        if let frontier, frontier >= target { return .reached }
        nextID += 1
        waits[nextID] = target
        return .waiting(nextID)
    }

    /// Records that `projection` has committed through `checkpoint` (checkpoints only move forward; names of other
    /// projections are ignored) and returns the waits now reached, which are no longer registered.
    package mutating func advance(_ projection: String, to checkpoint: LogCheckpoint) -> [Int] {
        guard projections.contains(projection), checkpoints[projection].map({ $0 < checkpoint }) ?? true else { return [] }
        checkpoints[projection] = checkpoint
        guard let frontier else { return [] }
        let reached = waits.filter { $0.value <= frontier }.map(\.key)
        for id in reached { waits[id] = nil }
        return reached.sorted()
    }

    /// Drops a wait that timed out; whether it was still registered.
    @discardableResult
    package mutating func cancel(_ id: Int) -> Bool { waits.removeValue(forKey: id) != nil }
}

/// Read-your-writes waits woken by the projection worker's commits, not by polling: the worker of this process
/// reports each committed batch (`advanced`), and every wait its batch reached is resumed at once.
/// `ProjectionVisibility` also feeds it the checkpoints read from the database, for workers in other processes.
public final class ProjectionProgress: Sendable {
    private struct Shared {
        var machine: ProjectionProgressState
        var answers: [Int: FirstAnswer<Bool>] = [:]
        var observers: [@Sendable () -> Void] = []
    }

    private let shared: Mutex<Shared>

    public init(projections: [String] = ProjectionCatalog.names) {
        shared = Mutex(Shared(machine: ProjectionProgressState(projections: projections)))
    }

    package var frontier: LogCheckpoint? { shared.withLock { $0.machine.frontier } }

    /// `projection` has committed everything through `checkpoint`.
    package func advanced(_ projection: String, to checkpoint: LogCheckpoint) {
        let (answers, observers) = shared.withLock { shared in
            (shared.machine.advance(projection, to: checkpoint).compactMap { shared.answers.removeValue(forKey: $0) }, shared.observers)
        }
        for answer in answers { answer.give(.success(true)) }
        for observer in observers { observer() }
    }

    /// Calls `observer` after every advance (the webhook fan-out and the live streams follow the projections).
    package func observe(_ observer: @escaping @Sendable () -> Void) {
        shared.withLock { $0.observers.append(observer) }
    }

    /// Whether every projection reaches `target` within `timeout`.
    package func wait(for target: LogCheckpoint, timeout: Duration) async -> Bool {
        let answer = FirstAnswer<Bool>()
        let registration = shared.withLock { shared in
            let registration = shared.machine.register(target)
            if case .waiting(let id) = registration { shared.answers[id] = answer }
            return registration
        }
        guard case .waiting(let id) = registration else { return true }
        let result = await answer.value(timeout: timeout) { .success(false) }
        shared.withLock { shared in
            shared.machine.cancel(id)
            shared.answers[id] = nil
        }
        return (try? result.get()) ?? false
    }
}
