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

/// Wakes projection workers and subscriptions after appends, without a second round trip in the append itself:
/// the NOTIFY goes out from a task of its own on another pooled connection, and appends that commit meanwhile share
/// the next one. Committed asynchronously: a notifying transaction has an xid and would wait for its own WAL flush.
package final class AppendAnnouncer: Sendable {
    private let pool: PostgresPool
    private let state = Mutex(NotifyCoalescer())

    package init(pool: PostgresPool) { self.pool = pool }

    package func appended(app appID: String) {
        guard case .send(let apps) = state.withLock({ $0.appended(app: appID) }) else { return }
        Task { await send(apps) }
    }

    private func send(_ first: [String]) async {
        var apps = first
        while true {
            _ = try? await pool.query(prepared: """
                SELECT set_config('synchronous_commit', 'off', true), pg_notify(\(EventStore.notificationChannel), app)
                FROM unnest(\(TextArray(apps))) AS app
                """)
            guard case .send(let next) = state.withLock({ $0.sent() }) else { return }
            apps = next
        }
    }
}
