import Foundation
import LedgerStore
import PostgresClient

/// `ledger replay` (a rebuild of every read model by fold-and-COPY, then the swap) run as its own process, so its
/// peak memory is its own (GNU time's maximum resident set), against PostgreSQL reading the same rows out:
/// `COPY (SELECT … FROM ledger.events) TO '/dev/null'`.
struct ReplayBenchmark {
    let cluster: BenchCluster

    func run(label: String) async throws -> [Figure] {
        let pool = cluster.pool(size: 2)
        defer { Task { await pool.shutdown() } }
        let events = try await pool.query("SELECT count(*) FROM ledger.events").first?.decode(Int64.self, at: 0) ?? 0
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let (output, seconds) = try await ExternalTool.timed {
            try await ExternalTool.run(["/usr/bin/time", "-f", "peak-rss-kb=%M", executable, "ledger", "replay", "--database-url", cluster.url])
        }
        let peakKB = output.split(separator: "\n").last { $0.hasPrefix("peak-rss-kb=") }.flatMap { Double($0.dropFirst("peak-rss-kb=".count)) } ?? 0
        let (_, copySeconds) = try await ExternalTool.timed {
            try await pool.query("""
                COPY (SELECT app_id, position, transaction_id, stream_id, stream_version, event_type, schema_version, payload,
                             metadata, idempotency_key, occurred_at, recorded_at FROM ledger.events) TO '/dev/null'
                """)
        }
        let folded = output.split(separator: "\n").last { $0.hasPrefix("rebuilt ") }.map(String.init) ?? ""
        guard folded.hasSuffix("from \(events) events") else {
            throw ExternalTool.Failed(command: "ledger replay", output: "expected a rebuild from \(events) events:\n\(output)")
        }
        return [
            Figure(name: "replay \(label)", workload: "`ledger replay`: rebuild all \(ProjectionCatalog.names.count) read models from \(events) events",
                   value: Double(events) / seconds, unit: "events/s", reference: "COPY (SELECT … FROM events) TO '/dev/null'",
                   referenceValue: Double(events) / copySeconds, target: "≥ 50% of the reference",
                   detail: ["events": Double(events), "seconds": seconds, "reference seconds": copySeconds]),
            Figure(name: "replay \(label) peak memory", workload: "peak RSS of the `ledger replay` process", value: peakKB / 1024, unit: "MiB",
                   target: "≤ 512 MB", lowerIsBetter: true),
        ]
    }
}
