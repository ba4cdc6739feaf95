import Foundation
import LedgerStore
import PostgresClient

/// A full rebuild of every projection from the log (`ledger replay --rebuild`'s path), against PostgreSQL reading
/// the same rows out: `COPY (SELECT … FROM ledger.events) TO '/dev/null'`.
struct ReplayBenchmark {
    let cluster: BenchCluster

    func run(label: String) async throws -> Figure {
        let pool = cluster.pool(size: 2)
        defer { Task { await pool.shutdown() } }
        let events = try await pool.query("SELECT count(*) FROM ledger.events").first?.decode(Int64.self, at: 0) ?? 0
        var detail: [String: Double] = ["events": Double(events)]
        let (_, seconds) = try await ExternalTool.timed {
            for runner in ProjectionCatalog.runners() {
                let (_, each) = try await ExternalTool.timed { try await ProjectionReplay.rebuild(runner, pool: pool) }
                detail["\(runner.name) s"] = each
            }
        }
        let (_, copySeconds) = try await ExternalTool.timed {
            try await pool.query("""
                COPY (SELECT app_id, position, transaction_id, stream_id, stream_version, event_type, schema_version, payload,
                             metadata, idempotency_key, occurred_at, recorded_at FROM ledger.events) TO '/dev/null'
                """)
        }
        detail["seconds"] = seconds
        return Figure(name: "replay \(label)", workload: "rebuild all \(ProjectionCatalog.names.count) projections from \(events) events",
                      value: Double(events) / seconds, unit: "events/s", reference: "COPY (SELECT … FROM events) TO '/dev/null'",
                      referenceValue: Double(events) / copySeconds, target: "≥ 200,000 events/s", detail: detail)
    }
}
