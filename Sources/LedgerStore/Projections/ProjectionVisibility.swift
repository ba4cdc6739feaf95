import PostgresClient

/// Read-your-writes for the per-user views: waits until every projection has applied given events.
///
/// The views read projection tables, which the workers keep current a moment after each commit (they are woken by
/// NOTIFY). An app that uploads a purchase and reads its status right away expects to see it, so the API's write
/// endpoints wait here — briefly, and never failing the write: past the timeout the answer goes out and the
/// views catch up on their own.
public struct ProjectionVisibility: Sendable {
    public let pool: PostgresPool
    public let projections: [String]

    public init(pool: PostgresPool, projections: [String] = ProjectionCatalog.names) {
        self.pool = pool
        self.projections = projections
    }

    /// Whether every projection's checkpoint has passed the events at `positions` of `appID`.
    public func isVisible(app appID: String, positions: [Int64]) async throws -> Bool {
        guard !positions.isEmpty else { return true }
        return try await pool.query("""
            WITH newest AS (
                SELECT transaction_id, position FROM ledger.events
                WHERE app_id = \(appID) AND position = ANY(\(Int64Array(positions)))
                ORDER BY transaction_id DESC, position DESC LIMIT 1)
            SELECT count(*) = \(Int64(projections.count)) FROM ledger.projection_checkpoints c, newest
            WHERE c.projection = ANY(\(TextArray(projections)))
              AND (c.transaction_id, c.position) >= (newest.transaction_id, newest.position)
            """).first?.decode(Bool.self, at: 0) ?? false
    }

    /// Waits (polling every few milliseconds) until the events are visible or `timeout` passes; returns whether
    /// they became visible.
    @discardableResult
    public func wait(app appID: String, positions: [Int64], timeout: Duration) async throws -> Bool {
        guard timeout > .zero else { return false }
        let deadline = ContinuousClock.now + timeout
        while true {
            if try await isVisible(app: appID, positions: positions) { return true }
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
