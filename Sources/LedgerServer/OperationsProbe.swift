import Foundation
import Logging
import Metrics
import PostgresClient
import ServiceLifecycle

/// The gauges on-call reads that no request updates: whether the database answers (`ledger_database_up`, a
/// `SELECT 1` every `interval`, given up after `timeout`), the connection pool's use
/// (`ledger_db_pool_connections_in_use`, `ledger_db_pool_waiting_requests`), and the webhooks' backlog
/// (`ledger_webhook_queue_depth` and `ledger_webhook_oldest_undelivered_age_seconds` by endpoint id,
/// `ledger_webhook_endpoints_disabled`), read every `webhookEvery`-th probe with one statement, and, as often, the
/// latest projection rebuild's progress (`ledger_rebuild_*`). Alert rules and the dashboard are in
/// `Deploy/observability/` (docs/runbook.md).
package struct OperationsProbe: Service {
    let pool: PostgresPool
    var interval: Duration = .seconds(5)
    var timeout: Duration = .seconds(3)
    var webhookEvery = 3
    let logger: Logger

    package init(pool: PostgresPool, interval: Duration = .seconds(5), logger: Logger) {
        self.pool = pool
        self.interval = interval
        self.logger = logger
        LedgerMetrics.bootstrap()
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            var round = 0
            var endpoints: Set<String> = []
            var outstanding: Task<Bool, Never>?
            while !Task.isCancelled {
                let up = await probe(outstanding: &outstanding)
                Gauge(label: "ledger_database_up").record(up ? 1 : 0)
                let usage = pool.usage
                Gauge(label: "ledger_db_pool_connections_in_use").record(usage.inUse)
                Gauge(label: "ledger_db_pool_waiting_requests").record(usage.waiting)
                if up, round % webhookEvery == 0 {
                    endpoints = await webhookBacklog(previous: endpoints)
                    await rebuildProgress()
                }
                round += 1
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Whether `SELECT 1` answers within `timeout` (a database that hangs is as down as one that refuses). The
    /// query is not awaited past the timeout (a hung connect may take minutes to fail), and while one is still out
    /// no other starts: the database reads as down.
    func probe(outstanding: inout Task<Bool, Never>?) async -> Bool {
        if let running = outstanding {
            guard await Self.first(running, within: .zero) != nil else { return false }
        }
        let query = Task { [pool] in (try? await pool.query("SELECT 1")) != nil }
        outstanding = query
        guard let answered = await Self.first(query, within: timeout) else { return false }
        outstanding = nil
        return answered
    }

    /// `task`'s value if it ends within `timeout`, else nil (the task goes on).
    static func first(_ task: Task<Bool, Never>, within timeout: Duration) async -> Bool? {
        let (stream, continuation) = AsyncStream<Bool?>.makeStream()
        let waiter = Task { continuation.yield(await task.value) }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.yield(nil)
        }
        var iterator = stream.makeAsyncIterator()
        let result = await iterator.next() ?? nil
        waiter.cancel()
        timer.cancel()
        continuation.finish()
        return result
    }

    /// The backlog per enabled endpoint.
    func webhookBacklog(previous: Set<String>) async -> Set<String> {
        do {
            // Every enabled endpoint, 0 when it has nothing pending (a series that exists before the backlog does).
            let rows = try await pool.query(
                """
                SELECT e.endpoint_id, count(d.delivery_id),
                       coalesce(extract(epoch FROM now() - min(d.created_at))::bigint, 0)
                FROM ledger.webhook_endpoints e
                LEFT JOIN ledger.webhook_deliveries d ON d.app_id = e.app_id AND d.endpoint_id = e.endpoint_id AND d.status = 'pending'
                WHERE e.status = 'enabled'
                GROUP BY e.endpoint_id
                """)
            var seen: Set<String> = []
            for row in rows {
                let endpoint = try row.decode(String.self, at: 0)
                seen.insert(endpoint)
                Gauge(label: "ledger_webhook_queue_depth", dimensions: [("endpoint", endpoint)]).record(try row.decode(Int64.self, at: 1))
                Gauge(label: "ledger_webhook_oldest_undelivered_age_seconds", dimensions: [("endpoint", endpoint)])
                    .record(try row.decode(Int64.self, at: 2))
            }
            for endpoint in previous.subtracting(seen) {  // disabled or deleted since: its backlog is not waited on
                Gauge(label: "ledger_webhook_queue_depth", dimensions: [("endpoint", endpoint)]).record(0)
                Gauge(label: "ledger_webhook_oldest_undelivered_age_seconds", dimensions: [("endpoint", endpoint)]).record(0)
            }
            let disabled = try await pool.query("SELECT count(*) FROM ledger.webhook_endpoints WHERE status = 'disabled'")
            Gauge(label: "ledger_webhook_endpoints_disabled").record(try disabled.first?.decode(Int64.self, at: 0) ?? 0)
            return seen
        } catch {
            logger.warning("reading the webhook backlog for the metrics failed", metadata: ["error": "\(error)"])
            return previous
        }
    }

    /// The latest projection rebuild, from `ledger.rebuild_progress` (written by whichever process rebuilds): running
    /// (1) while its report is younger than a minute (a killed rebuild stops counting as running), and its events.
    func rebuildProgress() async {
        do {
            let row = try await pool.query(
                """
                SELECT status = 'running' AND updated_at > now() - interval '1 minute', events_done, events_estimated
                FROM ledger.rebuild_progress
                """
            ).first
            Gauge(label: "ledger_rebuild_running").record(try row?.decode(Bool.self, at: 0) == true ? 1 : 0)
            Gauge(label: "ledger_rebuild_events_done").record(try row?.decode(Int64.self, at: 1) ?? 0)
            Gauge(label: "ledger_rebuild_events_estimated").record(try row?.decode(Int64.self, at: 2) ?? 0)
        } catch {
            logger.warning("reading the rebuild's progress for the metrics failed", metadata: ["error": "\(error)"])
        }
    }
}
