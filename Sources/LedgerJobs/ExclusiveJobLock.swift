import PostgresClient
import Synchronization

/// The right to run one job (signing digests, the App Store work) on exactly one instance at a time: a session-level
/// PostgreSQL advisory lock held on a connection of its own. When the holder dies, PostgreSQL ends its session and
/// drops the lock, and another instance takes it at its next try; no lease to expire, no clock to trust.
///
/// The holder is remembered by its backend's process id: a pool that replaced a broken connection has a new session
/// that holds nothing, so the next call finds a different pid and tries to take the lock again.
package final class ExclusiveJobLock: Sendable {
    package let job: String
    private let pool: PostgresPool
    private let holder = Mutex<Int64?>(nil)

    /// `configuration`: the service's database; the lock uses one connection of its own.
    package init(job: String, configuration: PostgresConfiguration) {
        self.job = job
        self.pool = PostgresPool(configuration: configuration, size: 1)
    }

    /// Whether this instance holds the lock after the call: still held, or taken now. False when another instance
    /// holds it, and when the database cannot be reached (a lock that cannot be confirmed is not held).
    package func holdOrTake() async -> Bool {
        let held = holder.withLock { $0 }
        let job = job
        do {
            let (pid, holds) = try await pool.withConnection { connection -> (Int64, Bool) in
                let row = try connection.query(
                    """
                    SELECT pg_backend_pid()::int8,
                           CASE WHEN pg_backend_pid() = \(held ?? 0) THEN true
                                ELSE pg_try_advisory_lock(hashtext('ledger.job'), hashtext(\(job))) END
                    """)[0]  // a SELECT without FROM: one row
                return (try row.decode(Int64.self, at: 0), try row.decode(Bool.self, at: 1))
            }
            holder.withLock { $0 = holds ? pid : nil }
            return holds
        } catch {
            holder.withLock { $0 = nil }
            return false
        }
    }

    /// Gives the lock up (graceful shutdown) and closes the connection.
    package func release() async {
        if holder.withLock({ $0 }) != nil {
            let job = job
            _ = try? await pool.query("SELECT pg_advisory_unlock(hashtext('ledger.job'), hashtext(\(job)))")
            holder.withLock { $0 = nil }
        }
        await pool.shutdown()
    }
}
