import EmbeddedPostgres
import Foundation
import LedgerStore
import PostgresClient

/// The one PostgreSQL every figure is measured on, the ledger and the raw references alike: an embedded cluster
/// with the service's default, durable settings (fsync and synchronous commit on), in a temporary folder that is
/// removed at the end.
struct BenchCluster: Sendable {
    static let database = "ledger"
    let cluster: EmbeddedCluster
    let running: EmbeddedCluster.Running

    static func start() throws -> BenchCluster {
        let directory = NSTemporaryDirectory() + "ledger-bench-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        let cluster = EmbeddedCluster(directory: directory, installation: try PostgresInstallation.locate(),
                                      options: .init(maxConnections: 200))
        var running = try cluster.start()
        try running.ensureDatabase(database)
        var connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: running.connectionString(database: database)))
        if ProcessInfo.processInfo.environment["LEDGER_BENCH_STATEMENTS"] != nil {
            // Profiling: every statement's time in pg_stat_statements (printed at the end of a --live-only run), and
            // the plan of every statement slower than 200 ms in the cluster's log (auto_explain: which plan was slow).
            _ = try connection.query("ALTER SYSTEM SET shared_preload_libraries = pg_stat_statements, auto_explain")
            try cluster.stop()
            running = try cluster.start()
            connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: running.connectionString(database: database)))
            _ = try connection.query("CREATE EXTENSION pg_stat_statements")
            _ = try connection.query("ALTER SYSTEM SET pg_stat_statements.track = 'all'")
            _ = try connection.query("ALTER SYSTEM SET auto_explain.log_min_duration = '200ms'")
            _ = try connection.query("SELECT pg_reload_conf()")
        }
        _ = try SchemaMigrator(migrations: try SchemaLocation.migrations()).migrate(on: connection)
        return BenchCluster(cluster: cluster, running: running)
    }

    /// libpq keyword string of the benchmark database, as the superuser (pgbench, psql and the server use it too).
    var url: String { running.connectionString(database: Self.database) }

    func pool(size: Int) -> PostgresPool { PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: size) }

    func connect() throws -> PostgresConnection { try PostgresConnection.connect(PostgresConfiguration(connectionString: url)) }

    func program(_ name: String) -> String { cluster.installation.program(name) }

    func settings() throws -> [String: String] {
        let connection = try connect()
        var settings: [String: String] = [:]
        for name in ["server_version", "shared_buffers", "fsync", "synchronous_commit", "wal_level", "max_wal_size", "work_mem"] {
            settings[name] = try connection.query("SELECT current_setting(\(name))").first?.decode(String.self, at: 0)
        }
        return settings
    }

    /// The statements that took the most time, when LEDGER_BENCH_STATEMENTS set pg_stat_statements up.
    func topStatements(_ limit: Int = 15) -> String {
        guard ProcessInfo.processInfo.environment["LEDGER_BENCH_STATEMENTS"] != nil, let connection = try? connect(),
              let rows = try? connection.query("""
                  SELECT round(total_exec_time)::bigint, calls, round(mean_exec_time::numeric, 3)::text, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 160)
                  FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT \(Int64(limit))
                  """) else { return "" }
        return rows.map { row in
            ((try? row.decode(Int64.self, at: 0)).map { "\($0) ms" } ?? "?") + "  calls \((try? row.decode(Int64.self, at: 1)) ?? 0)"
                + "  mean \((try? row.decode(String.self, at: 2)) ?? "?") ms  rows \((try? row.decode(Int64.self, at: 3)) ?? 0)  "
                + ((try? row.decode(String.self, at: 4)) ?? "")
        }.joined(separator: "\n") + "\n" + statementsByPagesRead(on: connection) + tablesScanned(on: connection)
    }

    /// The statements that read the most pages (from shared buffers or not): a cheap statement called often that
    /// scans shows here before it shows in time.
    private func statementsByPagesRead(on connection: PostgresConnection, _ limit: Int = 6) -> String {
        guard let rows = try? connection.query("""
                  SELECT shared_blks_hit + shared_blks_read, calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 160)
                  FROM pg_stat_statements ORDER BY shared_blks_hit + shared_blks_read DESC LIMIT \(Int64(limit))
                  """) else { return "" }
        return rows.map { row in
            "pages \((try? row.decode(Int64.self, at: 0)) ?? 0)  calls \((try? row.decode(Int64.self, at: 1)) ?? 0)  "
                + ((try? row.decode(String.self, at: 2)) ?? "")
        }.joined(separator: "\n") + "\n"
    }

    /// The tables whose pages were read the most, with their sequential scans (and the live rows those read: dead
    /// versions they step over are not counted there, but their pages are): a scan over a small, often-updated
    /// table shows here, not in the statements' means.
    private func tablesScanned(on connection: PostgresConnection, _ limit: Int = 8) -> String {
        guard let rows = try? connection.query("""
                  SELECT t.schemaname || '.' || t.relname, t.seq_scan, t.seq_tup_read, coalesce(t.idx_scan, 0), t.n_live_tup,
                         t.n_dead_tup, coalesce(io.heap_blks_hit, 0) + coalesce(io.heap_blks_read, 0), pg_relation_size(t.relid) / 8192
                  FROM pg_stat_user_tables t JOIN pg_statio_user_tables io USING (relid)
                  ORDER BY coalesce(io.heap_blks_hit, 0) + coalesce(io.heap_blks_read, 0) DESC LIMIT \(Int64(limit))
                  """) else { return "" }
        return rows.map { row in
            let numbers = (1...7).map { (try? row.decode(Int64.self, at: $0)) ?? 0 }
            return "\((try? row.decode(String.self, at: 0)) ?? "?")  heap pages read \(numbers[5])  sequential scans \(numbers[0])"
                + "  rows read by them \(numbers[1])  index scans \(numbers[2])  live \(numbers[3])  dead \(numbers[4])  pages \(numbers[6])"
        }.joined(separator: "\n") + "\n"
    }

    func stop() {
        try? cluster.stop()
        try? FileManager.default.removeItem(atPath: cluster.directory)
    }
}
