import LedgerStore

/// Read-your-writes for the app and its backend: a write waits (briefly) until the projections include its events,
/// so that a read right after it sees it.
struct ReadYourWrites: Sendable {
    let visibility: ProjectionVisibility
    /// How long a write waits at most (0: not at all; `LedgerAPI.Configuration.readYourWrites`).
    let timeout: Duration

    func wait(app appID: String, positions: [Int64]) async throws {
        try await visibility.wait(app: appID, positions: positions, timeout: timeout)
    }
}
