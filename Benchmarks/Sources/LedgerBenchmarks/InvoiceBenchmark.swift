import Foundation
import LedgerBilling
import LedgerDomain
import LedgerStore
import PostgresClient

/// Finalizing a month for every account (`ledger invoices finalize --all`'s path), against PostgreSQL counting the
/// same paying users: `count(DISTINCT (app, user))` over the month's events.
struct InvoiceBenchmark {
    let cluster: BenchCluster
    let dataset: Dataset

    func run() async throws -> Figure {
        let pool = cluster.pool(size: 2)
        defer { Task { await pool.shutdown() } }
        // How much of `paying_users` an index-only scan finds all-visible (the rest it reads from the heap) and how
        // often autovacuum has been through it since the rebuild swapped it in: what the count depends on besides
        // the code.
        try await pool.query("CREATE EXTENSION IF NOT EXISTS pg_visibility")
        let visibility = try await pool.query("""
            SELECT (SELECT all_visible FROM pg_visibility_map_summary('ledger.paying_users'::regclass)),
                   pg_relation_size('ledger.paying_users') / current_setting('block_size')::int8,
                   (SELECT autovacuum_count FROM pg_stat_user_tables WHERE relid = 'ledger.paying_users'::regclass)
            """)[0]
        let (allVisible, pages, autovacuums) = (try visibility.decode(Int64.self, at: 0), try visibility.decode(Int64.self, at: 1),
                                                try visibility.decode(Int64.self, at: 2))
        let (invoices, seconds) = try await ExternalTool.timed { try await InvoiceStore(pool: pool).finalizeAll(month: Dataset.month) }
        let billed = invoices.reduce(0) { $0 + $1.invoice.content.payingUsers }
        let (distinct, referenceSeconds) = try await ExternalTool.timed {
            try await pool.query("""
                SELECT count(DISTINCT (app_id, payload #>> '{transaction,appUserID}')) FROM ledger.events
                WHERE app_id IN (SELECT id FROM ledger.apps)
                  AND event_type = 'subscription.started' AND payload #>> '{transaction,environment}' = 'Production'
                  AND occurred_at >= '2026-04-01' AND occurred_at < '2026-05-01'
                """).first?.decode(Int64.self, at: 0) ?? 0
        }
        guard billed == distinct else {
            throw ExternalTool.Failed(command: "invoices", output: "the invoices bill \(billed) paying users, count(DISTINCT) finds \(distinct)")
        }
        return Figure(name: "invoices", workload: "finalize \(Dataset.month) for \(invoices.count) accounts, \(billed) paying users",
                      value: seconds, unit: "s", reference: "count(DISTINCT (app, user)) over the month's events",
                      referenceValue: referenceSeconds, target: "< 5 s for 1M paying users",
                      detail: ["invoices": Double(invoices.count), "paying users": Double(billed),
                               "paying_users pages all-visible %": pages == 0 ? 100 : (Double(allVisible) * 100 / Double(pages)).rounded(),
                               "paying_users autovacuums": Double(autovacuums)], lowerIsBetter: true)
    }
}
