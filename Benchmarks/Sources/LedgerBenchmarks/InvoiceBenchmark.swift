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
                      detail: ["invoices": Double(invoices.count), "paying users": Double(billed)], lowerIsBetter: true)
    }
}
