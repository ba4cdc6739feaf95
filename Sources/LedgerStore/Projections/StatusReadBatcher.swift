import LedgerDomain
import Metrics
import PostgresClient
import Synchronization
import Tracing

/// Status reads in flight, read together: reads that arrive while the database answers earlier ones wait and then go
/// in one statement (`UserQueries.ownedByIndexesSQL`), as group commit does for writes. A lone read never waits for
/// company: with nothing in flight it runs at once, alone, as the one-user statement it always was.
///
/// A status read is mostly fixed costs: a hop to a pool thread, a round trip, a statement's execution start (about
/// 155 µs of PostgreSQL's CPU for one user, Benchmarks/README.md); a batch pays them once for all its reads, and each
/// read then costs its index lookups. Every read in a batch starts after its request arrived, so a batch answers each
/// read from a snapshot no older than a read of its own would have had: read-your-writes and the answers are
/// unchanged (`StatusReadBatchTests`).
///
/// `GroupCommitQueue` forms the batches (reads have no streams to keep in order). On Citus each read runs as its own
/// statement on a connection of its own, as without batching: a batch would span apps, so shards on several workers.
package final class StatusReadBatcher: Sendable {
    /// Readers at once (each holds one pooled connection) and reads per statement.
    package static let defaultLimits = GroupCommitLimits(maximumGroups: 2, maximumAppends: 64, maximumEvents: 64)

    struct Read: Sendable {
        var app: String
        var userIndex: [UInt8]
        var continuation: CheckedContinuation<Result<OwnedSummaries, any Error>, Never>
        /// The caller's trace: a batch's statement is a child of its first traced read and links the others.
        var context: InstrumentationContext?
    }

    /// A read's key: the app, and the blind index of the app's user id.
    package typealias Key = (app: String, userIndex: [UInt8])

    private let pool: PostgresPool
    private let queue: Mutex<GroupCommitQueue<Read>>
    private let statementCount = Atomic<Int>(0)
    /// Whether the database is known to take one statement for several apps' reads (not on Citus); asked once.
    private let batching = Mutex<Bool?>(nil)

    package init(pool: PostgresPool, limits: GroupCommitLimits = defaultLimits) {
        self.pool = pool
        self.queue = Mutex(GroupCommitQueue(limits: limits))
    }

    /// Reads waiting for a reader to take them.
    package var waitingCount: Int { queue.withLock { $0.waitingCount } }

    /// Batches read so far (each one statement).
    package var batches: Int { statementCount.load(ordering: .relaxed) }

    /// What the user whose id has the blind index `userIndex` owns in `app` (`UserQueries.summaries(app:userIndex:)`).
    package func summaries(app: String, userIndex: [UInt8]) async throws -> OwnedSummaries {
        if batching.withLock({ $0 == false }) {
            // Citus: each read its own statement on a connection of its own, in parallel, as without the batcher.
            return try await pool.withConnection { connection in try UserQueries.summaries(app: app, userIndex: userIndex, on: connection) }
        }
        return try await withCheckedContinuation { continuation in
            let read = Read(app: app, userIndex: userIndex, continuation: continuation, context: .current)
            if queue.withLock({ $0.submit(read, app: app) }) {
                // The reader serves other requests' reads: it carries no caller's trace (each batch sets its own).
                Task { await InstrumentationContext.withValue(nil) { await self.runReader() } }
            }
        }.get()
    }

    /// One reader: on one connection, takes the reads waiting right before reading them, answers them, and takes
    /// again until none is left. Without a connection it fails what it takes; the next read starts another reader.
    private func runReader() async {
        do {
            try await pool.withConnection { connection in
                let together: Bool
                if let known = self.batching.withLock({ $0 }) {
                    together = known
                } else {
                    // Asked outside the lock: readers on other threads only ever read it.
                    together = !(try CitusDetection.isCitus(on: connection))
                    self.batching.withLock { $0 = together }
                }
                self.drain { reads in Self.read(reads.map { ($0.app, $0.userIndex) }, together: together, on: connection) }
            }
        } catch {
            drain { reads in Array(repeating: .failure(error), count: reads.count) }
        }
    }

    private func drain(_ read: ([Read]) -> [Result<OwnedSummaries, any Error>]) {
        var batch = queue.withLock { $0.next(after: nil) }
        while let current = batch {
            let results = Self.traced(current.items) { read(current.items) }
            statementCount.add(1, ordering: .relaxed)
            Recorder(label: "ledger_status_read_batch_size", aggregate: true).record(current.items.count)
            for (item, result) in zip(current.items, results) { item.continuation.resume(returning: result) }
            batch = queue.withLock { $0.next(after: current) }
        }
    }

    /// The answers to the reads `keys`, in order: one statement for all of them when `together`, else one each.
    package static func read(_ keys: [Key], together: Bool, on connection: PostgresConnection) -> [Result<OwnedSummaries, any Error>] {
        guard together, keys.count > 1 else {
            return keys.map { key in Result { try UserQueries.summaries(app: key.app, userIndex: key.userIndex, on: connection) } }
        }
        do {
            let query = PostgresQuery(
                unsafeSQL: UserQueries.ownedByIndexesSQL,
                bindings: [TextArray(keys.map(\.app)).postgresValue, ByteaArray(keys.map(\.userIndex)).postgresValue])
            var owned = Array(repeating: OwnedSummaries(), count: keys.count)
            for row in try connection.query(prepared: query) {
                let n = Int(try row.decode(Int64.self, at: 0))
                guard owned.indices.contains(n - 1) else {
                    throw PostgresError.decoding(column: "n", message: "a batched status read's ordinal \(n) is out of range")
                }
                try UserQueries.add(row, from: 1, to: &owned[n - 1])
            }
            return owned.map { .success($0) }
        } catch {
            return Array(repeating: .failure(error), count: keys.count)
        }
    }

    /// Runs `read` inside a span for the batch when any of its reads is traced (`BatchSpan`).
    private static func traced(_ reads: [Read], _ read: () -> [Result<OwnedSummaries, any Error>]) -> [Result<OwnedSummaries, any Error>] {
        BatchSpan.run("ledger.status_read_batch", callers: reads.compactMap(\.context)) { span in
            span?.attributes["ledger.status_read_batch.reads"] = reads.count
            return read()
        }
    }
}
