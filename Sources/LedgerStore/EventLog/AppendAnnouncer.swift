import PostgresClient
import Synchronization

/// When NOTIFYs go out: at most one at a time per `EventStore`, each naming every app that appended since the last
/// one began. A pure state machine, tested directly; `AppendAnnouncer` runs it.
///
/// Every append is covered by a NOTIFY sent after its commit: one that was already on its way when the append
/// committed may have been sent before it, so the append's app waits in `pending` for the next.
package struct NotifyCoalescer: Sendable {
    package enum Action: Equatable, Sendable {
        case none
        /// Send one NOTIFY per app, then report `sent()`.
        case send([String])
    }

    private var sending = false
    private var pending: Set<String> = []

    package init() {}

    /// An append of `app` committed.
    package mutating func appended(app: String) -> Action {
        guard sending else {
            sending = true
            return .send([app])
        }
        pending.insert(app)
        return .none
    }

    /// The NOTIFYs of the last `send` went out (or failed: a listener falls back to polling).
    package mutating func sent() -> Action {
        guard !pending.isEmpty else {
            sending = false
            return .none
        }
        defer { pending.removeAll() }
        return .send(pending.sorted())
    }
}

/// Tells other processes' projection workers and subscriptions of appends, without a second round trip in the
/// append itself: the NOTIFY goes out from a task of its own on another pooled connection, and appends that commit
/// meanwhile share the next one. Committed asynchronously: a notifying transaction has an xid and would wait for
/// its own WAL flush.
///
/// NOTIFYs are at least `spacing` apart (the first after a quiet spell goes at once): each is a transaction of
/// PostgreSQL's, and under a stream of appends one per commit took a pool connection and CPU from the appends
/// themselves. This process's own readers do not wait for it (`LocalAppendSignals`).
package final class AppendAnnouncer: Sendable {
    private let pool: PostgresPool
    private let spacing: Duration
    private let state = Mutex(NotifyCoalescer())

    /// `spacing` (`EventStore`'s default 5 ms) delays another instance's projection worker by a few milliseconds at
    /// most; a read-your-writes wait there polls the checkpoints every 20 ms anyway.
    package init(pool: PostgresPool, spacing: Duration) {
        self.pool = pool
        self.spacing = spacing
    }

    package func appended(app appID: String) {
        guard case .send(let apps) = state.withLock({ $0.appended(app: appID) }) else { return }
        Task { await send(apps) }
    }

    private func send(_ first: [String]) async {
        var apps = first
        while true {
            let started = ContinuousClock.now
            _ = try? await pool.query(
                prepared: """
                    SELECT set_config('synchronous_commit', 'off', true), pg_notify(\(EventStore.notificationChannel), app)
                    FROM unnest(\(TextArray(apps))) AS app
                    """)
            // Appends meanwhile wait in the coalescer (still `sending`) and share the next NOTIFY.
            try? await Task.sleep(until: started + spacing)
            guard case .send(let next) = state.withLock({ $0.sent() }) else { return }
            apps = next
        }
    }
}
