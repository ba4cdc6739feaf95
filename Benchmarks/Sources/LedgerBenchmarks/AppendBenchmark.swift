import Foundation
import LedgerDomain
import LedgerStore
import PostgresClient
import UTCTime

/// Appends through `EventStore` (idempotency key, optimistic stream version, hash-chain trigger) against the same
/// row written by PostgreSQL alone: pgbench inserting it into an equivalent table (`LIKE ledger.events INCLUDING
/// ALL`: same columns, keys and indexes, no trigger; the hash computed in the INSERT), and `COPY` of the same rows.
struct AppendBenchmark {
    let cluster: BenchCluster
    let seconds: Int
    let clients = 4

    /// A typical event: a subscription start as the log stores it (about 500 bytes of JSON).
    static let payload: String = {
        let day = Instant(microsecondsSinceEpoch: 1_775_779_200_000_000)
        let facts = TransactionFacts(appUserID: "user-1", productID: "monthly", transactionID: "2000000123", originalTransactionID: "2000000123",
                                     environment: .production, purchaseDate: day, expiresDate: day.adding(days: 30), signedDate: day)
        return LedgerEvent.subscriptionStarted(SubscriptionStarted(transaction: facts)).encoded().payload
    }()

    static func event(_ key: String) -> NewEvent {
        NewEvent(type: "subscription.started", payload: payload, metadata: EventMetadata(source: "bench"), idempotencyKey: key,
                 occurredAt: Instant(microsecondsSinceEpoch: 1_775_779_200_000_000))
    }

    func prepareReference() throws {
        try cluster.connect().execute("""
            CREATE SCHEMA IF NOT EXISTS raw;
            CREATE TABLE raw.events (LIKE ledger.events INCLUDING ALL);
            CREATE TABLE raw.copied (LIKE ledger.events INCLUDING ALL);
            CREATE SEQUENCE raw.n;
            CREATE TABLE raw.payload (payload jsonb NOT NULL);
            """)
    }

    /// Four clients, one event per transaction, for `seconds`; each client appends to its own 2,500 streams in turn.
    func single() async throws -> Figure {
        let pool = cluster.pool(size: clients)
        defer { Task { await pool.shutdown() } }
        // LEDGER_BENCH_LINGER_US compares group commit's linger (GroupCommitQueue) with another, 0 for none.
        var limits = EventStore.defaultGroupCommit
        if let micros = ProcessInfo.processInfo.environment["LEDGER_BENCH_LINGER_US"].flatMap(Int.init) { limits.linger = .microseconds(micros) }
        if let groups = ProcessInfo.processInfo.environment["LEDGER_BENCH_GROUPS"].flatMap(Int.init) { limits.maximumGroups = groups }
        if let appends = ProcessInfo.processInfo.environment["LEDGER_BENCH_GROUP_APPENDS"].flatMap(Int.init) { limits.maximumAppends = appends }
        // LEDGER_BENCH_NOTIFY_SPACING_MS compares the NOTIFYs' spacing (AppendAnnouncer) with another, 0 for none.
        let spacing = ProcessInfo.processInfo.environment["LEDGER_BENCH_NOTIFY_SPACING_MS"].flatMap(Int.init).map { Duration.milliseconds($0) }
        let store = EventStore(pool: pool, groupCommit: limits, notifySpacing: spacing ?? .milliseconds(5))
        let deadline = ContinuousClock.now + .seconds(seconds)
        let (appended, elapsed) = try await ExternalTool.timed {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for client in 0..<clients {
                    group.addTask {
                        var count = 0
                        while ContinuousClock.now < deadline {
                            _ = try await store.append(app: "bench-single", stream: "s\(client)-\(count % 2_500)", events: [Self.event("k\(client)-\(count)")])
                            count += 1
                        }
                        return count
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        let perTransaction = try cluster.connect().query(
            "SELECT round(count(*)::numeric / greatest(count(DISTINCT transaction_id), 1), 2)::text FROM ledger.events WHERE app_id = 'bench-single'")
            .first.flatMap { Double(try $0.decode(String.self, at: 0)) } ?? 0
        let reference = try await pgbenchInsert()
        return Figure(name: "single-event append", workload: "\(clients) clients, 1 event per append, \(seconds) s",
                      value: Double(appended) / elapsed, unit: "events/s", reference: "pgbench, \(clients) clients, INSERT of the same row",
                      referenceValue: reference.tps, target: "≥ 70% of pgbench",
                      detail: ["events": Double(appended), "pgbench latency ms": reference.latencyAverageMs,
                               "appends per transaction (group commit)": perTransaction,
                               "linger µs": Double(limits.linger.components.attoseconds / 1_000_000_000_000) + Double(limits.linger.components.seconds) * 1e6])
    }

    /// pgbench reads the payload from a one-row table: its scripts would take the `:123` inside JSON for variables.
    private func pgbenchInsert() async throws -> PgbenchResult {
        try cluster.connect().query("INSERT INTO raw.payload VALUES (\(Self.payload)::jsonb)")
        let script = """
            INSERT INTO raw.events (app_id, stream_id, stream_version, event_type, schema_version, payload, metadata, idempotency_key, occurred_at, previous_hash, hash) \
            SELECT 'bench-single', 's' || (n % 10000), n, 'subscription.started', 1, p.payload, '{"source": "bench"}'::jsonb, 'k' || n, now(), \
            '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea, sha256(convert_to(p.payload::text || n, 'UTF8')) \
            FROM raw.payload AS p, (SELECT nextval('raw.n') AS n) AS s;

            """
        let file = NSTemporaryDirectory() + "ledger-bench-insert.sql"
        try script.write(toFile: file, atomically: true, encoding: .utf8)
        return try await PgbenchResult.run(cluster, ["-n", "-M", "prepared", "-c", "\(clients)", "-j", "2", "-T", "\(seconds)", "-f", file])
    }

    /// `batches` appends of 500 events each (one transaction each, one client) against COPY of the same rows.
    func batched(batches: Int) async throws -> Figure {
        let batch = 500
        let pool = cluster.pool(size: 1)
        defer { Task { await pool.shutdown() } }
        let store = EventStore(pool: pool)
        let (_, elapsed) = try await ExternalTool.timed {
            for index in 0..<batches {
                _ = try await store.append(app: "bench-batch", stream: "b\(index)", expected: .noStream,
                                           events: (0..<batch).map { Self.event("b\(index)-\($0)") })
            }
        }
        let events = batches * batch
        let copySeconds = try await copyReference(events: events, batch: batch)
        return Figure(name: "batched append", workload: "\(batches) batches of \(batch) events, 1 client",
                      value: Double(events) / elapsed, unit: "events/s", reference: "COPY of the same \(events) rows (psql \\copy)",
                      referenceValue: Double(events) / copySeconds, target: "≥ 50% of COPY", detail: ["events": Double(events)])
    }

    /// The same rows as CSV, loaded by `psql \copy` (over the same connection path as the ledger's appends).
    private func copyReference(events: Int, batch: Int) async throws -> Double {
        let file = NSTemporaryDirectory() + "ledger-bench-copy.csv"
        let quoted = "\"" + Self.payload.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        let zero = "\\x" + String(repeating: "0", count: 64)
        var csv = ""
        csv.reserveCapacity(events * (Self.payload.count + 200))
        for index in 0..<events {
            csv += "bench-batch,b\(index / batch),\(index % batch + 1),subscription.started,1,\(quoted),\"{\"\"source\"\": \"\"bench\"\"}\",b\(index),2026-04-10 00:00:00+00,\(zero),\(zero)\n"
        }
        try csv.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let columns = "app_id, stream_id, stream_version, event_type, schema_version, payload, metadata, idempotency_key, occurred_at, previous_hash, hash"
        let (_, elapsed) = try await ExternalTool.timed {
            try await ExternalTool.run([cluster.program("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                                        "\\copy raw.copied (\(columns)) FROM '\(file)' WITH (FORMAT csv)", cluster.url])
        }
        return elapsed
    }
}
