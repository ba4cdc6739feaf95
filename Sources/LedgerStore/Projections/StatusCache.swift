import LedgerConcurrency
import LedgerDomain
import Logging
import Metrics
import PostgresClient
import Synchronization

/// The status reads' in-process cache: what each recently read user owns, kept current by following the projections
/// (the change feed the live streams read), so that a repeated status read costs no database round trip.
///
/// **How it stays current.** A loop (`run`, woken by this process's projection worker or every `pollInterval` for
/// workers elsewhere) reads the projections' frontier, the streams that changed since its last look, and the owners
/// now of the changed purchases, and drops every entry those changes concern. Every instance runs its own, against
/// the one database, so a change made through any instance reaches every instance's cache the same way.
///
/// **What a read may see** (`StatusCacheTable`):
/// - with a token (`Ledger-Read-After`: a write's position in the log), never a state older than it: the cache answers
///   only once its frontier has reached the token; a read ahead of it wakes the loop and waits for it (up to the
///   caller's wait), and reads the database after that;
/// - without one, a state no older than `staleness` (default 1 s): the cache answers only while its last look at the
///   frontier is that recent; a stalled loop (the database away) sends every read to the database;
/// - expiry is judged at the read's own clock: the cache holds the summaries, not the answer, and every read computes
///   the status from them at its own "now".
///
/// **Memory.** Entries are evicted least recently read first once their estimated size passes `budgetBytes`
/// (`LEDGER_STATUS_CACHE_MB`, default 32; the estimate is about 0.8 of what the server's RSS grows by, measured in
/// Benchmarks/README.md), and dropped when nobody has read them for `idleLifetime` (2 minutes); an unknown user is
/// never held (the feed could not name them).
package final class StatusCache: Sendable {
    package struct Settings: Sendable {
        /// Estimated bytes held at most; 0 turns the cache off.
        package var budgetBytes: Int = 32 << 20
        /// How old the loop's last look at the frontier may be for the cache to answer a read without a token.
        package var staleness: Duration = .seconds(1)
        /// How often the loop looks when nothing wakes it.
        package var pollInterval: Duration = .milliseconds(100)
        /// How soon after one look the next may start, however often the loop is woken.
        package var minimumGap: Duration = .milliseconds(10)
        /// How long an entry nobody reads is kept (each look drops those older).
        package var idleLifetime: Duration = .seconds(120)
        /// Events one look reads; with more, the cache starts over rather than read them all.
        package var changesPerLook = 50_000

        package init() {}
    }

    package let settings: Settings
    private let live: LiveQueries
    private let table: Mutex<StatusCacheTable>
    private let signal = WakeSignal()
    /// The frontier each look reached, for the reads waiting for their token.
    private let reached = ProjectionProgress(projections: [StatusCache.progressName])
    private let logger: Logger
    private static let progressName = "status_cache"
    private let hits = Counter(label: "ledger_status_cache_reads", dimensions: [("answer", "hit")])
    private let misses = Counter(label: "ledger_status_cache_reads", dimensions: [("answer", "miss")])

    package init(pool: PostgresPool, settings: Settings = Settings(), logger: Logger = Logger(label: "ledger.status-cache")) {
        self.settings = settings
        self.live = LiveQueries(pool: pool)
        self.table = Mutex(StatusCacheTable(budget: settings.budgetBytes, staleness: settings.staleness))
        self.logger = logger
    }

    package var isEnabled: Bool { settings.budgetBytes > 0 }

    /// Entries held, and their estimated bytes.
    package var usage: (entries: Int, bytes: Int) { table.withLock { ($0.count, $0.bytes) } }

    /// The summaries of the user `userIndex` of `app` when the cache may answer a read carrying `token` (waiting up to
    /// `wait` for the loop to reach the token); otherwise `read` answers from the database, and what it found is kept.
    /// The answer, and whether the cache gave it.
    package func summaries(
        app: String, userIndex: [UInt8], token: LogCheckpoint?, wait: Duration, read: () async throws -> (OwnedSummaries, keep: Bool)
    ) async throws -> (OwnedSummaries, cached: Bool) {
        let key = StatusCacheTable.Key(app: app, userIndex: userIndex)
        var lookup = table.withLock { $0.lookup(key, token: token, now: .now) }
        if case .behind = lookup, let token {
            signal.fire()
            if await reached.wait(for: token, timeout: wait) { lookup = table.withLock { $0.lookup(key, token: token, now: .now) } }
        }
        let generation: UInt64
        switch lookup {
        case .hit(let owned):
            hits.increment()
            return (owned, true)
        case .miss(let current), .behind(let current):
            generation = current
        }
        misses.increment()
        let (owned, keep) = try await read()
        if keep { table.withLock { _ = $0.insert(key, owned, generation: generation) } }
        return (owned, false)
    }

    /// New events may have been applied: look now rather than at the next poll.
    package func wake() { signal.fire() }

    /// Drops the user `pseudonym` of `app` (erased here or on another instance).
    package func forget(app: String, pseudonym: String) { table.withLock { $0.forget(.init(app: app, id: pseudonym)) } }

    /// Drops everything (a notice may have been missed).
    package func reset() { table.withLock { $0.reset(frontier: nil, readAt: nil) } }

    /// Follows the projections until cancelled (returns at once when the cache is off).
    package func run() async {
        guard isEnabled else { return }
        while !Task.isCancelled {
            let started = ContinuousClock.now
            do {
                try await look()
            } catch {
                // The cache stops answering once its last look is older than `staleness`: reads go to the database.
                logger.warning("the status cache could not follow the projections; retrying", metadata: ["error": "\(error)"])
            }
            await signal.wait(timeout: settings.pollInterval)
            // Under a stream of writes every projection batch wakes it: a look at most every `minimumGap` bounds what
            // following costs the database, and delays a token's read by at most that.
            let since = ContinuousClock.now - started
            if since < settings.minimumGap { try? await Task.sleep(for: settings.minimumGap - since) }
        }
    }

    /// Whether the cache has looked at the projections once within `timeout` (a test waits for its loop to start).
    package func firstLook(within timeout: Duration) async -> Bool { await reached.wait(for: .start, timeout: timeout) }

    /// One look: the frontier, and the changes since the last one (what `run` does each round; a test calls it while
    /// the loop is idle or not running: two looks at once may start the cache over, never keep a stale entry).
    package func look() async throws {
        let readAt = ContinuousClock.now
        // A projection that has never committed has applied nothing: the log's start.
        let frontier = try await live.frontier() ?? .start
        let (last, held) = table.withLock { ($0.frontier, $0.count > 0) }
        // Start over on the first look (nothing before it can be trusted), after a rebuild that moved the projections
        // back, and when nothing is held (no need to read what changed; starting over keeps out any read that went in
        // meanwhile).
        guard let last, last <= frontier, last == frontier || held else { return startOver(at: frontier, readAt: readAt) }
        var users: [StatusCacheTable.Name] = []
        var purchases: [StatusCacheTable.Name] = []
        if last < frontier {
            let changes = try await live.changes(after: last, through: frontier, apps: nil, limit: settings.changesPerLook)
            // More changes than one look reads: starting over is cheaper than reading them all.
            guard changes.complete else { return startOver(at: frontier, readAt: readAt) }
            users = changes.users.map { .init(app: $0.app, id: $0.id) }
            users += try await live.owners(of: changes.purchases).map { .init(app: $0.app, id: $0.id) }
            purchases = changes.purchases.map { .init(app: $0.app, id: $0.key) }
        }
        table.withLock { table in
            table.advance(to: frontier, readAt: readAt, users: users, purchases: purchases)
            table.dropUnread(since: readAt - settings.idleLifetime)
        }
        reached.advanced(Self.progressName, to: frontier)
    }

    private func startOver(at frontier: LogCheckpoint, readAt: ContinuousClock.Instant) {
        table.withLock { $0.reset(frontier: frontier, readAt: readAt) }
        reached.advanced(Self.progressName, to: frontier)
    }
}
