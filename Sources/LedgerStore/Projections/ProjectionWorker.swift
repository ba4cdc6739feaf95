import LedgerConcurrency
import LedgerDomain
import Logging
import Metrics
import PostgresClient
import UTCTime

/// Keeps every projection current: catches up, then waits for `NOTIFY ledger_events` (or the poll interval, since
/// notifications are lost while the listener reconnects) and catches up again. Safe with several instances: each
/// batch holds its projection's advisory lock, so only one instance applies a given projection at a time.
public struct ProjectionWorker: Sendable {
    let pool: PostgresPool
    let runners: [any ProjectionRunning]
    let logger: Logger
    /// Told of every committed batch: it wakes this process's read-your-writes waits.
    let progress: ProjectionProgress?

    public init(
        pool: PostgresPool, runners: [any ProjectionRunning], progress: ProjectionProgress? = nil,
        logger: Logger = Logger(label: "ledger.projections")
    ) {
        self.pool = pool
        self.runners = runners
        self.progress = progress
        self.logger = logger
    }

    /// Applies every event not yet applied; returns how many events were read. The projections are independent
    /// (their own rows, checkpoint and lock), so they catch up side by side: a write's read-your-writes wait is
    /// one batch long, not one per projection. `recordingLag` also publishes the lag gauge (two queries per
    /// projection).
    @discardableResult
    public func catchUp(recordingLag: Bool = true, progress: @escaping @Sendable (String, Int) -> Void = { _, _ in }) async throws -> Int {
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for runner in runners {
                group.addTask { try await catchUp(runner, progress: progress) }
            }
            return try await group.reduce(0, +)
        }
        if recordingLag { try await recordLag() }
        return total
    }

    private func catchUp(_ runner: any ProjectionRunning, progress: @escaping @Sendable (String, Int) -> Void) async throws -> Int {
        var applied = 0
        while true {
            let batch = try await pool.withConnection { try runner.applyBatch(on: $0, before: nil) }
            if let checkpoint = batch.checkpoint { self.progress?.advanced(runner.name, to: checkpoint) }
            let count = batch.events
            applied += count
            if count > 0 { progress(runner.name, applied) }
            // A short batch read everything readable when it ran; what commits later wakes the worker again (the
            // signal is latched), so no empty batch is needed to confirm.
            if count < runner.batchSize { return applied }
        }
    }

    /// Applies every event committed before the call. Readers see only events older than every transaction still
    /// running on the server (`pg_snapshot_xmin`, server-wide), so when another transaction — in any database of
    /// the cluster — holds that horizon back, this waits (polling) for it, up to `timeout`. For tests, tools and
    /// rebuilds that must include everything already written. Returns how many events were read.
    @discardableResult
    public func catchUpThroughNow(
        timeout: Duration = .seconds(60),
        progress: @escaping @Sendable (String, Int) -> Void = { _, _ in }
    ) async throws -> Int {
        let names = runners.map(\.name)
        guard
            let target = try await pool.query(
                """
                SELECT transaction_id, position FROM ledger.events ORDER BY transaction_id DESC, position DESC LIMIT 1
                """
            ).first.map({ (try $0.decode(UInt64.self, at: 0), try $0.decode(Int64.self, at: 1)) })
        else {
            return try await catchUp(progress: progress)
        }
        let deadline = ContinuousClock.now + timeout
        var total = 0
        while true {
            total += try await catchUp(progress: progress)
            let reached = try await pool.query(prepared: ProjectionCheckpoints.visible(names)).filter {
                LogCheckpoint(transactionID: try $0.decode(UInt64.self, at: 1), position: try $0.decode(Int64.self, at: 2))
                    >= LogCheckpoint(transactionID: target.0, position: target.1)
            }
            if reached.count == names.count { return total }
            guard ContinuousClock.now < deadline else {
                throw EventStoreError.invalidEvent(
                    "projections did not reach the newest event within \(timeout): a long transaction on the " + "server holds the horizon back")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Runs until the task is cancelled.
    public func run(pollInterval: Duration = .seconds(1)) async {
        let wakeUp = AppendWakeUp(configuration: pool.configuration)
        var lagRecorded: ContinuousClock.Instant?
        while !Task.isCancelled {
            do {
                // The lag gauge at most once a second: under a stream of writes the worker wakes per commit.
                let recordingLag = lagRecorded.map { ContinuousClock.now - $0 >= .seconds(1) } ?? true
                try await catchUp(recordingLag: recordingLag)
                if recordingLag { lagRecorded = .now }
            } catch {
                // The database may be down; the next round retries. Nothing was half-applied (one transaction per batch).
                logger.warning("projection catch-up failed; retrying", metadata: ["error": "\(error)"])
            }
            await wakeUp.wait(timeout: pollInterval)
        }
        // The LISTEN connection is closed before `run` returns, so that a server stopping the embedded cluster next
        // leaves no client behind (PostgreSQL would log a FATAL for it).
        await wakeUp.stop()
    }

    /// Publishes, per projection, how many events it has not applied yet (`ledger_projection_lag_events`).
    static let lagCap: Int64 = 1_000_000

    func recordLag() async throws {
        let names = runners.map(\.name)
        // The checkpoint first, then a count bounded by bound parameters, in log order, so the (transaction_id,
        // position) index serves it: with the checkpoint in a subquery PostgreSQL scanned the whole log on every
        // catch-up, which held notification ingest at 37/s on a million-event log (the ingest benchmark); without
        // the ORDER BY the connections' generic plans scanned the whole log too, once a second. Capped: a lag
        // beyond the cap is reported as the cap.
        let lags = try await pool.withConnection { connection in
            try names.map { name in
                let checkpoint =
                    try connection.query(
                        prepared: """
                            SELECT transaction_id, position FROM ledger.projection_checkpoints WHERE projection = \(name)
                            """
                    ).first.map { LogCheckpoint(transactionID: try $0.decode(UInt64.self, at: 0), position: try $0.decode(Int64.self, at: 1)) }
                    ?? .start
                return try connection.query(
                    prepared: """
                        SELECT count(*) FROM (SELECT 1 FROM ledger.events
                            WHERE (transaction_id, position) > (\(TransactionIDValue(value: checkpoint.transactionID)), \(checkpoint.position))
                            ORDER BY transaction_id, position LIMIT \(Self.lagCap)) AS behind
                        """
                ).first?.decode(Int64.self, at: 0) ?? 0
            }
        }
        for (name, lag) in zip(names, lags) {
            Gauge(label: "ledger_projection_lag_events", dimensions: [("projection", name)]).record(lag)
        }
    }
}
