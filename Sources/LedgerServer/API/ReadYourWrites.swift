import LedgerStore
import LedgerTracing
import Tracing

/// Read-your-writes for the app and its backend: a write waits (briefly) until the projections include its events,
/// so that a read right after it sees it.
struct ReadYourWrites: Sendable {
    let visibility: ProjectionVisibility
    /// How long a write waits at most (0: not at all; `LedgerAPI.Configuration.readYourWrites`).
    let timeout: Duration

    /// Inside a trace, the wait is a span (`ledger.projection_wait`) that says whether the projections caught up in
    /// time (`ledger.projections.caught_up`): a write answered before them is the usual cause of "I paid and the app
    /// still shows the paywall".
    func wait(app appID: String, positions: [Int64]) async throws {
        try await TraceContext.inSpan("ledger.projection_wait") { span in
            let caughtUp = try await visibility.wait(app: appID, positions: positions, timeout: timeout)
            span?.attributes["ledger.projections.caught_up"] = caughtUp
        }
    }
}
