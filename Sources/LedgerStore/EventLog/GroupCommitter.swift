import Foundation
import PostgresClient
import Synchronization
import Metrics
import Tracing

/// Commits concurrent appends together: appends that arrive while the database is busy with earlier ones wait and
/// then go in one statement, one transaction and one WAL flush. Runs `GroupCommitQueue` to form the groups and
/// `AppendStatements.appendGroup` to write each (`ledger.append_events_set`, schema/034); each append keeps its own
/// result or error. It never calls `EventStore`, which submits to it.
package final class GroupCommitter: Sendable {
    /// The appends of one caller, to streams of one app, committed in one group in this order (each on its own:
    /// one refused does not undo the others).
    package struct Submission: Sendable {
        var appID: String
        var appends: [EventStore.StreamAppend]
        var continuation: CheckedContinuation<[Result<AppendResult, any Error>], Never>
        /// The caller's trace: a group's span is a child of its first traced append and links the others.
        var context: InstrumentationContext?
    }

    private let pool: PostgresPool
    private let queue: Mutex<GroupCommitQueue<Submission>>
    /// Wakes a lingering committer when an append arrives. A committer lingers on its pool thread (the drain runs
    /// synchronously there, beside libpq's blocking calls), never on the cooperative pool.
    private let arrivals = NSCondition()
    private let linger: TimeInterval
    /// Whether `queue` knows yet if groups may span apps (they may not on Citus); asked of the database once.
    private let databaseKnown = Atomic<Bool>(false)

    package init(pool: PostgresPool, limits: GroupCommitLimits) {
        self.pool = pool
        self.queue = Mutex(GroupCommitQueue(limits: limits))
        let (seconds, attoseconds) = limits.linger.components
        self.linger = TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// Submissions waiting for a committer to take them.
    package var waitingCount: Int { queue.withLock { $0.waitingCount } }

    /// Appends each of `appends` to its stream, in order, and answers each one's result.
    package func append(app appID: String, _ appends: [EventStore.StreamAppend]) async -> [Result<AppendResult, any Error>] {
        await withCheckedContinuation { continuation in
            let submission = Submission(appID: appID, appends: appends, continuation: continuation, context: .current)
            let streams = appends.map { (app: appID, stream: $0.streamID) }
            let events = appends.reduce(0) { $0 + $1.events.count }
            let (start, wake) = queue.withLock { ($0.submit(submission, streams: streams, events: events), $0.lingeringCount > 0) }
            if wake {
                arrivals.lock()
                arrivals.broadcast()
                arrivals.unlock()
            }
            if start { Task { await runCommitter() } }
        }
    }

    /// One committer: on one connection, takes a group right before running it (so that appends arriving meanwhile
    /// join it), answers its appends, and takes again until nothing is left for it. Without a connection it fails
    /// what it takes, and the next submission starts another committer.
    private func runCommitter() async {
        do {
            try await pool.withConnection { connection in
                if !self.databaseKnown.load(ordering: .acquiring) {
                    let spans = !(try CitusDetection.isCitus(on: connection))
                    self.queue.withLock { $0.groupsSpanApps = spans }
                    self.databaseKnown.store(true, ordering: .releasing)
                }
                // On Citus a group is one app's, and runs append by append: its set-based INSERT … SELECT would commit
                // through COPY, in two phases (schema/031).
                let appendByAppend = !self.queue.withLock { $0.groupsSpanApps }
                self.drain { AppendStatements.appendGroup(on: connection, Self.requests($0), appendByAppend: appendByAppend) }
            }
        } catch {
            drain { Array(repeating: .failure(error), count: Self.requests($0).count) }
        }
    }

    /// Takes groups until none is left for this committer, answering each group's appends with `commit`'s results.
    private func drain(_ commit: ([Submission]) -> [Result<AppendResult, any Error>]) {
        var group = queue.withLock { $0.next(after: nil) }
        while let current = group {
            let results = Self.traced(current.items) { commit(current.items) }
            // The appends in the group, counted without building the request list again.
            Recorder(label: "ledger_group_commit_size", aggregate: true).record(current.items.reduce(0) { $0 + $1.appends.count })
            // Decided before the answers go out, so that the writers answered find this committer lingering.
            let wanted = queue.withLock { $0.beginLinger(after: current) }
            Self.answer(current.items, results)
            if let wanted { lingerForWriters(wanted) }
            group = queue.withLock { $0.next(after: current) }
        }
    }

    /// Waits, at most `linger`, until `wanted` appends wait.
    private func lingerForWriters(_ wanted: Int) {
        let deadline = Date(timeIntervalSinceNow: linger)
        arrivals.lock()
        // An arrival counts itself before it takes `arrivals` to signal: none is missed between the check and the wait.
        while queue.withLock({ $0.waitingCount }) < wanted, arrivals.wait(until: deadline) {}
        arrivals.unlock()
        queue.withLock { $0.endLinger() }
    }

    /// Runs `commit` inside a span for the group when any of its appends is traced: the child of the first traced
    /// one, linking the others (a group serves several requests, and each request's trace finds the group it joined),
    /// with the statement's span beneath it.
    private static func traced(
        _ submissions: [Submission], _ commit: () -> [Result<AppendResult, any Error>]
    ) -> [Result<AppendResult, any Error>] {
        BatchSpan.run("ledger.group_commit", callers: submissions.compactMap(\.context)) { span in
            span?.attributes["ledger.group_commit.appends"] = submissions.reduce(0) { $0 + $1.appends.count }
            span?.attributes["ledger.group_commit.callers"] = submissions.count
            let results = commit()
            let failed = results.reduce(0) { count, result in if case .failure = result { count + 1 } else { count } }
            if failed > 0 { span?.attributes["ledger.group_commit.refused"] = failed }
            return results
        }
    }

    private static func requests(_ submissions: [Submission]) -> [(appID: String, append: EventStore.StreamAppend)] {
        submissions.flatMap { submission in submission.appends.map { (appID: submission.appID, append: $0) } }
    }

    private static func answer(_ submissions: [Submission], _ results: [Result<AppendResult, any Error>]) {
        var next = results[...]
        for submission in submissions {
            let count = submission.appends.count
            submission.continuation.resume(returning: Array(next.prefix(count)))
            next = next.dropFirst(count)
        }
    }
}
