import Foundation
import LedgerStore
import PostgresClient
import Synchronization

/// Status reads for random users of the data set, with wrk: `/productsStatus` and `/v1/users/{id}` (secret key;
/// the suite fails on any non-200), against the same server's `/health` (the framework's ceiling), pgbench's
/// select-only run, and PostgreSQL answering the read's own statement alone (`statementAlone`).
struct ReadBenchmark {
    let cluster: BenchCluster
    let server: ServerProcess
    let dataset: Dataset
    let seconds: Int
    let connections = 16

    func run() async throws -> [Figure] {
        let health = try await wrk("health")
        let pgbench = try await selectOnly()
        let statement = try await statementAlone()
        var figures: [Figure] = []
        for (mode, name) in [("products", "GET /productsStatus"), ("user", "GET /v1/users/{id}")] {
            server.resetPeak()
            let start = try await costs()
            let result = try await wrk(mode)
            let end = try await costs()
            let memory = server.peakRSSMiB()
            guard result.failures + result.socketErrors == 0 else {
                throw ExternalTool.Failed(command: "wrk \(mode)", output: "\(result.failures + result.socketErrors) of \(result.requests) answers were not 200")
            }
            // Issue 15's target is a share of `/health`; `pgbench -S` shows what PostgreSQL alone answers.
            for (reference, value, target) in [("GET /health of the same server", health.perSecond, "≥ 50% of /health, p99 ≤ 5 ms"),
                                               ("pgbench -S, \(connections) clients", pgbench.tps, "—"),
                                               ("the read's own statement through libpq, \(connections) connections, no HTTP", statement, "—")] {
                figures.append(Figure(
                    name: "status reads: \(name)", workload: "random users of \(dataset.payingUsers), wrk \(connections) connections, \(seconds) s",
                    value: result.perSecond, unit: "requests/s", reference: reference, referenceValue: value,
                    target: target,
                    detail: ["p50 ms": result.p50Ms, "p99 ms": result.p99Ms, "non-200": Double(result.failures + result.socketErrors),
                             "server peak RSS MiB": memory].merging(end.perRead(since: start, reads: result.requests)) { $1 }))
            }
            // The same reads for a set of users the status cache holds: what an app's users reading their status
            // again (every launch, every paywall) cost. A first pass fills the cache; the second is measured.
            let hot = Self.repeatUsersPerApp
            _ = try await wrk(mode, usersPerApp: hot, seconds: max(1, seconds / 2))
            server.resetPeak()
            // What the run cost: the cache's answers, the server's CPU and the database's transactions per read.
            let before = try await costs()
            let repeated = try await wrk(mode, usersPerApp: hot)
            let after = try await costs()
            let repeatedMemory = server.peakRSSMiB()
            guard repeated.failures + repeated.socketErrors == 0 else {
                throw ExternalTool.Failed(command: "wrk \(mode) repeat", output: "\(repeated.failures + repeated.socketErrors) of \(repeated.requests) answers were not 200")
            }
            figures.append(Figure(
                name: "status reads, repeated (status cache): \(name)",
                workload: "random users of \(dataset.accounts * hot) read again and again (\(hot) per app), wrk \(connections) connections, \(seconds) s",
                value: repeated.perSecond, unit: "requests/s", reference: "GET /health of the same server", referenceValue: health.perSecond,
                target: "≥ 50% of /health, p99 ≤ 5 ms",
                detail: ["p50 ms": repeated.p50Ms, "p99 ms": repeated.p99Ms, "server peak RSS MiB": repeatedMemory]
                    .merging(after.perRead(since: before, reads: repeated.requests, cacheShare: true)) { $1 }))
        }
        return figures
    }

    /// The status cache's answers so far, the server's CPU seconds, and the database's committed transactions (all
    /// sessions, as PostgreSQL's statistics have them; they lag by up to a second).
    struct Costs {
        var hits: Double
        var misses: Double
        var cpu: Double
        var transactions: Double

        /// What each of `reads` cost since `start`, as a figure's detail (with the cache's share when asked).
        func perRead(since start: Costs, reads: Int, cacheShare: Bool = false) -> [String: Double] {
            let reads = Double(max(1, reads))
            var detail = ["server CPU µs/read": (1e6 * (cpu - start.cpu) / reads).rounded(),
                          "database transactions/read": ((transactions - start.transactions) / reads * 100).rounded() / 100]
            if cacheShare {
                let (hits, misses) = (self.hits - start.hits, self.misses - start.misses)
                detail["cache hit %"] = hits + misses > 0 ? (100 * hits / (hits + misses)).rounded() : 0
            }
            return detail
        }
    }

    private func costs() async throws -> Costs {
        let transactions = try cluster.connect().query("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
            .first?.decode(Int64.self, at: 0) ?? 0
        let metrics = try await server.metrics()
        return Costs(hits: ServerProcess.sum(in: metrics, "ledger_status_cache_reads", labels: #"answer="hit""#),
                     misses: ServerProcess.sum(in: metrics, "ledger_status_cache_reads", labels: #"answer="miss""#),
                     cpu: server.cpuSeconds(), transactions: Double(transactions))
    }

    /// Users per app of the repeated reads: 10,000 users with the full data set's 1,000 apps, which the status cache's
    /// default budget holds.
    static let repeatUsersPerApp = 10

    /// One wrk run of `mode` (`health`, `products`, `user`) for `usersPerApp` users of each app (all by default).
    func wrk(_ mode: String, usersPerApp: Int? = nil, seconds: Int? = nil) async throws -> WrkResult {
        try await WrkResult.run(baseURL: server.baseURL, seconds: seconds ?? self.seconds, connections: connections, environment: [
            "BENCH_MODE": mode, "BENCH_APPS": dataset.appsFile, "BENCH_USERS": "\(usersPerApp ?? dataset.usersPerApp)",
        ])
    }

    /// Statements per second PostgreSQL answers when asked the status read's own prepared statement
    /// (`UserQueries.statusReadQuery`) for random users of the data set directly through libpq: `connections`
    /// connections, a thread each, for `seconds`, nothing else in the way (no HTTP, no pool, no JSON). What a read
    /// costs above this is the server's own; this is the database's pace the reads are measured against.
    private func statementAlone() async throws -> Double {
        let apps = try String(contentsOfFile: dataset.appsFile, encoding: .utf8).split(separator: "\n").compactMap { line -> (String, String)? in
            let fields = line.split(separator: " ")
            return fields.count == 4 ? (String(fields[0]), String(fields[3])) : nil
        }
        guard !apps.isEmpty else { throw ExternalTool.Failed(command: "read statement", output: "no apps in \(dataset.appsFile)") }
        // The statement finds a user by the blind index of their id (keyed by the server's master key); the server
        // made them when it adopted the data set's users, so they are read here rather than computed.
        let indexes = try cluster.connect().query("SELECT app_id, blind_index FROM ledger.identities WHERE blind_index IS NOT NULL")
        let byApp = Dictionary(grouping: try indexes.map { (try $0.decode(String.self, at: 0), try $0.decode([UInt8].self, at: 1)) }, by: \.0)
            .mapValues { $0.map(\.1) }
        guard apps.allSatisfy({ byApp[$0.0]?.isEmpty == false }) else {
            throw ExternalTool.Failed(command: "read statement", output: "the server has not adopted the data set's users")
        }
        let (url, seconds) = (cluster.url, seconds)
        let answered = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let (_, elapsed) = try await ExternalTool.timed {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let finished = DispatchGroup()
                let deadline = Date().addingTimeInterval(Double(seconds))
                for _ in 0..<connections {
                    finished.enter()
                    Thread {
                        defer { finished.leave() }
                        do {
                            let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
                            var count = 0
                            while Date() < deadline {
                                let (app, _) = apps[Int.random(in: 0..<apps.count)]
                                let users = byApp[app] ?? []
                                let rows = try connection.query(prepared: UserQueries.statusReadQuery(
                                    app: app, userIndex: users[Int.random(in: 0..<users.count)]))
                                guard rows.count == 1 else { throw ExternalTool.Failed(command: "read statement", output: "\(rows.count) rows") }
                                count += 1
                            }
                            answered.add(count, ordering: .relaxed)
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    }.start()
                }
                finished.notify(queue: .global()) { continuation.resume() }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw ExternalTool.Failed(command: "read statement", output: failure) }
        return Double(answered.load(ordering: .relaxed)) / elapsed
    }

    /// pgbench's own select-only workload (a primary-key lookup per transaction) on its scale-10 tables.
    private func selectOnly() async throws -> PgbenchResult {
        _ = try await ExternalTool.run([cluster.program("pgbench"), "-i", "-q", "-s", "10", cluster.url])
        return try await PgbenchResult.run(cluster, ["-n", "-S", "-M", "prepared", "-c", "\(connections)", "-j", "2", "-T", "\(seconds)"])
    }
}
