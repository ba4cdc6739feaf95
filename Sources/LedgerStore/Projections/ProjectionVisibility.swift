import PostgresClient
import UTCTime

/// Read-your-writes for the per-user views: waits until every projection has applied given events.
///
/// The views read projection tables, which the workers keep current a moment after each commit (they are woken by
/// NOTIFY). An app that uploads a purchase and reads its status right away expects to see it, so the API's write
/// endpoints wait here — briefly, and never failing the write: past the timeout the answer goes out and the
/// views catch up on their own.
///
/// A wait is woken by `progress`, which this process's projection worker advances after each batch it commits. A
/// worker in another process (another instance holds the projection's lock) reports nothing here, so a wait not
/// woken within `fallbackInterval` reads the checkpoints from the database, one read per interval however many
/// requests wait (`ProjectionFrontier`; a poll per waiting request would starve the pool under load).
public struct ProjectionVisibility: Sendable {
    public let pool: PostgresPool
    public let progress: ProjectionProgress
    private let frontier: ProjectionFrontier

    public init(
        pool: PostgresPool, progress: ProjectionProgress = ProjectionProgress(),
        fallbackInterval: Duration = .milliseconds(20)
    ) {
        self.pool = pool
        self.progress = progress
        self.frontier = ProjectionFrontier(pool: pool, interval: fallbackInterval)
    }

    /// Waits until the events are visible or `timeout` passes; returns whether they became visible.
    @discardableResult
    public func wait(app appID: String, positions: [Int64], timeout: Duration) async throws -> Bool {
        guard timeout > .zero else { return false }
        guard let target = try await newest(app: appID, positions: positions) else { return true }
        return try await wait(for: target, timeout: timeout)
    }

    /// Waits until every projection has applied the log through `target` or `timeout` passes; whether it had.
    package func wait(for target: LogCheckpoint, timeout: Duration) async throws -> Bool {
        guard timeout > .zero else { return false }
        let deadline = ContinuousClock.now + timeout
        if progress.frontier == nil { try await readCheckpoints() }
        while true {
            let left = deadline - .now
            // Past the deadline, what the last read of the checkpoints found still counts: under load that read
            // alone can outlast a short wait.
            guard left > .zero else { return progress.frontier.map { $0 >= target } ?? false }
            if await progress.wait(for: target, timeout: min(left, frontier.interval)) { return true }
            try await readCheckpoints()
        }
    }

    /// Whether every projection has applied the log through `target`, waiting up to `timeout` for it. Unlike `wait`,
    /// looks once even with no time left: this process's progress, else the database's checkpoints.
    package func includes(_ target: LogCheckpoint, within timeout: Duration) async throws -> Bool {
        if let reached = progress.frontier, reached >= target { return true }
        if timeout > .zero { return try await wait(for: target, timeout: timeout) }
        try await readCheckpoints()
        return progress.frontier.map { $0 >= target } ?? false
    }

    /// The database's checkpoints, into `progress` (which wakes the waits they reach).
    private func readCheckpoints() async throws {
        for (projection, checkpoint) in try await frontier.current() { progress.advanced(projection, to: checkpoint) }
    }

    /// The log order of the newest of the events (nil: none of them exists), by position (unique across the log),
    /// the app checked in the same scan (`ledger.newest_of_positions`, schema/032: the position index answers it
    /// whatever the statistics; a statement planned on a new log scanned the whole log per write).
    package func newest(app appID: String, positions: [Int64]) async throws -> LogCheckpoint? {
        guard !positions.isEmpty else { return nil }
        return try await pool.query(
            prepared: """
                SELECT out_transaction_id, out_position FROM ledger.newest_of_positions(\(appID), \(Int64Array(positions)))
                """
        ).first.map { LogCheckpoint(transactionID: try $0.decode(UInt64.self, at: 0), position: try $0.decode(Int64.self, at: 1)) }
    }
}

/// Every projection's checkpoint, read at most once per `interval`; concurrent callers share one read.
actor ProjectionFrontier {
    let pool: PostgresPool
    nonisolated let interval: Duration
    private var cached: (value: [String: LogCheckpoint], at: ContinuousClock.Instant)?
    private var reading: Task<[String: LogCheckpoint], any Error>?

    init(pool: PostgresPool, interval: Duration) {
        self.pool = pool
        self.interval = interval
    }

    func current() async throws -> [String: LogCheckpoint] {
        if let cached, ContinuousClock.now - cached.at < interval { return cached.value }
        if let reading { return try await reading.value }
        let task = Task { [pool] in try await Self.read(pool: pool) }
        reading = task
        defer { reading = nil }
        let value = try await task.value
        cached = (value, .now)
        return value
    }

    private static func read(pool: PostgresPool) async throws -> [String: LogCheckpoint] {
        var checkpoints: [String: LogCheckpoint] = [:]
        for row in try await pool.query(prepared: ProjectionCheckpoints.visible(nil)) {
            checkpoints[try row.decode(String.self, at: 0)] = LogCheckpoint(
                transactionID: try row.decode(UInt64.self, at: 1), position: try row.decode(Int64.self, at: 2))
        }
        return checkpoints
    }
}
