import LedgerStore
import LedgerTracing
import Synchronization
import Tracing

/// Read-your-writes for the app and its backend: a write waits (briefly) until the projections include its events,
/// so that a read right after it sees it, and answers with a token (`ReadToken`) that a read on any instance can send
/// back to be sure of it.
struct ReadYourWrites: Sendable {
    let visibility: ProjectionVisibility
    /// How long a write waits at most (0: not at all; `LedgerAPI.Configuration.readYourWrites`).
    let timeout: Duration

    /// Inside a trace, the wait is a span (`ledger.projection_wait`) that says whether the projections caught up in
    /// time (`ledger.projections.caught_up`): a write answered before them is the usual cause of "I paid and the app
    /// still shows the paywall". The newest of the events goes into the request's token (`WrittenCheckpoint`).
    func wait(app appID: String, positions: [Int64]) async throws {
        guard timeout > .zero || WrittenCheckpoint.current != nil else { return }
        guard let target = try await visibility.newest(app: appID, positions: positions) else { return }
        WrittenCheckpoint.current?.record(target)
        guard timeout > .zero else {
            WrittenCheckpoint.current?.recordAnsweredBeforeProjections()
            return
        }
        try await TraceContext.inSpan("ledger.projection_wait") { span in
            let caughtUp = try await visibility.wait(for: target, timeout: timeout)
            span?.attributes["ledger.projections.caught_up"] = caughtUp
            if !caughtUp { WrittenCheckpoint.current?.recordAnsweredBeforeProjections() }
        }
    }
}

/// The newest event a request wrote, for its read token: `ReadTokenMiddleware` gives each write one, the
/// read-your-writes wait records into it.
final class WrittenCheckpoint: Sendable {
    @TaskLocal static var current: WrittenCheckpoint?

    private let newest = Mutex<LogCheckpoint?>(nil)
    private let beforeProjections = Atomic<Bool>(false)

    var value: LogCheckpoint? { newest.withLock { $0 } }

    /// Whether the write answers before the projections included it (its wait timed out, or there was none): the
    /// primary's WAL position at its answer then says nothing of the read models, and its token carries none.
    var answeredBeforeProjections: Bool { beforeProjections.load(ordering: .relaxed) }

    func record(_ checkpoint: LogCheckpoint) { newest.withLock { $0 = max($0 ?? checkpoint, checkpoint) } }

    func recordAnsweredBeforeProjections() { beforeProjections.store(true, ordering: .relaxed) }
}
