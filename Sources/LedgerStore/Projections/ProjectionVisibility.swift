import PostgresClient

/// Read-your-writes for the per-user views: waits until every projection has applied given events.
///
/// The views read projection tables, which the workers keep current a moment after each commit (they are woken by
/// NOTIFY). An app that uploads a purchase and reads its status right away expects to see it, so the API's write
/// endpoints wait here — briefly, and never failing the write: past the timeout the answer goes out and the
/// views catch up on their own.
///
/// One instance serves the whole server: however many requests wait, the projections' checkpoints are read at most
/// once per `interval` (`ProjectionFrontier`). A poll per waiting request used to starve the pool under load
/// (the notification-ingest benchmark: 32 waiting requests, 8 connections).
public struct ProjectionVisibility: Sendable {
    public let pool: PostgresPool
    public let projections: [String]
    private let frontier: ProjectionFrontier

    public init(pool: PostgresPool, projections: [String] = ProjectionCatalog.names, interval: Duration = .milliseconds(2)) {
        self.pool = pool
        self.projections = projections
        self.frontier = ProjectionFrontier(pool: pool, projections: projections, interval: interval)
    }

    /// Whether every projection's checkpoint has passed the events at `positions` of `appID`.
    public func isVisible(app appID: String, positions: [Int64]) async throws -> Bool {
        guard let target = try await newest(app: appID, positions: positions) else { return true }
        return try await frontier.current().map { $0 >= target } ?? false
    }

    /// Waits (polling the shared frontier) until the events are visible or `timeout` passes; returns whether
    /// they became visible.
    @discardableResult
    public func wait(app appID: String, positions: [Int64], timeout: Duration) async throws -> Bool {
        guard timeout > .zero else { return false }
        guard let target = try await newest(app: appID, positions: positions) else { return true }
        let deadline = ContinuousClock.now + timeout
        while true {
            if let reached = try await frontier.current(), reached >= target { return true }
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: frontier.interval)
        }
    }

    /// The log order of the newest of the events (nil: none of them exists).
    private func newest(app appID: String, positions: [Int64]) async throws -> LogCheckpoint? {
        guard !positions.isEmpty else { return nil }
        return try await pool.query("""
            SELECT transaction_id, position FROM ledger.events
            WHERE app_id = \(appID) AND position = ANY(\(Int64Array(positions)))
            ORDER BY transaction_id DESC, position DESC LIMIT 1
            """).first.map { LogCheckpoint(transactionID: try $0.decode(UInt64.self, at: 0), position: try $0.decode(Int64.self, at: 1)) }
    }
}

/// The oldest checkpoint among the projections: what every one of them has applied. Read at most once per
/// `interval`; concurrent callers share one read.
actor ProjectionFrontier {
    let pool: PostgresPool
    let projections: [String]
    nonisolated let interval: Duration
    private var cached: (value: LogCheckpoint?, at: ContinuousClock.Instant)?
    private var reading: Task<LogCheckpoint?, any Error>?

    init(pool: PostgresPool, projections: [String], interval: Duration) {
        self.pool = pool
        self.projections = projections
        self.interval = interval
    }

    func current() async throws -> LogCheckpoint? {
        if let cached, ContinuousClock.now - cached.at < interval { return cached.value }
        if let reading { return try await reading.value }
        let task = Task { [pool, projections] in try await Self.read(pool: pool, projections: projections) }
        reading = task
        defer { reading = nil }
        let value = try await task.value
        cached = (value, .now)
        return value
    }

    /// nil while some projection has no checkpoint yet.
    private static func read(pool: PostgresPool, projections: [String]) async throws -> LogCheckpoint? {
        guard let row = try await pool.query("""
            SELECT transaction_id, position, count(*) OVER () FROM ledger.projection_checkpoints
            WHERE projection = ANY(\(TextArray(projections)))
            ORDER BY transaction_id, position LIMIT 1
            """).first, try row.decode(Int64.self, at: 2) == Int64(projections.count) else { return nil }
        return LogCheckpoint(transactionID: try row.decode(UInt64.self, at: 0), position: try row.decode(Int64.self, at: 1))
    }
}
