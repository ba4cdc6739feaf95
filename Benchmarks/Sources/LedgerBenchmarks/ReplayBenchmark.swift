import Foundation
import LedgerStore
import PostgresClient

/// `ledger replay` (a rebuild of every read model by fold-and-COPY, then the swap) run as its own process, so its
/// peak memory is its own (GNU time's maximum resident set), against PostgreSQL reading the same rows out:
/// `COPY (SELECT … FROM ledger.events) TO '/dev/null'`. A second reference is PostgreSQL's own share of a rebuild,
/// done by PostgreSQL alone: the log read out in stream order, the rebuilt rows copied in from files and their
/// indexes built, one step after another.
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
        let shareSeconds = try await postgresShareOfRebuild(pool)
        let folded = output.split(separator: "\n").last { $0.hasPrefix("rebuilt ") }.map(String.init) ?? ""
        guard folded.hasSuffix("from \(events) events") else {
            throw ExternalTool.Failed(command: "ledger replay", output: "expected a rebuild from \(events) events:\n\(output)")
        }
        return [
            Figure(name: "replay \(label)", workload: "`ledger replay`: rebuild all \(ProjectionCatalog.names.count) read models from \(events) events",
                   value: Double(events) / seconds, unit: "events/s", reference: "COPY (SELECT … FROM events) TO '/dev/null'",
                   referenceValue: Double(events) / copySeconds, target: "≥ 50% of the reference",
                   detail: ["events": Double(events), "seconds": seconds, "reference seconds": copySeconds]),
            Figure(name: "replay \(label)", workload: "`ledger replay`: rebuild all \(ProjectionCatalog.names.count) read models from \(events) events",
                   value: Double(events) / seconds, unit: "events/s",
                   reference: "PostgreSQL's own share of the rebuild: the log out in stream order, COPY in of the rebuilt rows, their indexes",
                   referenceValue: Double(events) / shareSeconds, target: "—",
                   detail: ["events": Double(events), "seconds": seconds, "reference seconds": shareSeconds]),
            Figure(name: "replay \(label) peak memory", workload: "peak RSS of the `ledger replay` process", value: peakKB / 1024, unit: "MiB",
                   target: "≤ 512 MB", lowerIsBetter: true),
        ]
    }

    /// Seconds PostgreSQL alone takes for its part of the rebuild that just ran: the log out in the rebuild's order
    /// (to `/dev/null`), then for each read-model table a `COPY` in of its rows from a file (written beforehand, not
    /// timed) into a fresh table and the table's indexes built. The fold in between is the ledger's own work.
    private func postgresShareOfRebuild(_ pool: PostgresPool) async throws -> Double {
        let directory = try await pool.query("SELECT current_setting('data_directory')").first?.decode(String.self, at: 0) ?? ""
        // With the rebuild's reader settings: the same plan for the same rows.
        let (_, readSeconds) = try await ExternalTool.timed {
            try await pool.withConnection { connection in
                try connection.execute("""
                    BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; \(ProjectionReplay.logReaderSettings);
                    COPY (\(ProjectionReplay.logInStreamOrder())) TO '/dev/null';
                    COMMIT
                    """)
            }
        }
        var writeSeconds = 0.0
        try await pool.withConnection { try $0.execute("DROP SCHEMA IF EXISTS bench_share CASCADE; CREATE SCHEMA bench_share") }
        for table in ProjectionCatalog.tableNames {
            let file = "\(directory)/bench-share-\(table).copy"
            try await pool.withConnection { try $0.execute("""
                COPY ledger.\(table) TO '\(file)';
                CREATE TABLE bench_share.\(table) (LIKE ledger.\(table) INCLUDING DEFAULTS)
                """) }
            let indexes = try await pool.query(PostgresQuery(unsafeSQL: """
                SELECT indexdef FROM pg_indexes WHERE schemaname = 'ledger' AND tablename = '\(table)'
                """)).map { try $0.decode(String.self, at: 0).replacingOccurrences(of: " ON ledger.", with: " ON bench_share.") }
            let (_, seconds) = try await ExternalTool.timed {
                try await pool.query(PostgresQuery(unsafeSQL: "COPY bench_share.\(table) FROM '\(file)'"))
                for index in indexes { try await pool.query(PostgresQuery(unsafeSQL: index)) }
            }
            writeSeconds += seconds
            try? FileManager.default.removeItem(atPath: file)
        }
        try await pool.withConnection { try $0.execute("DROP SCHEMA bench_share CASCADE") }
        return readSeconds + writeSeconds
    }
}
