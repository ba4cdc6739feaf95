import Foundation

/// Status reads for random users of the data set, with wrk: `/productsStatus` and `/v1/users/{id}` (secret key;
/// the suite fails on any non-200), against the same server's `/health` (the framework's ceiling) and pgbench's select-only run.
struct ReadBenchmark {
    let cluster: BenchCluster
    let server: ServerProcess
    let dataset: Dataset
    let seconds: Int
    let connections = 16

    func run() async throws -> [Figure] {
        let health = try await wrk("health")
        let pgbench = try await selectOnly()
        var figures: [Figure] = []
        for (mode, name) in [("products", "GET /productsStatus"), ("user", "GET /v1/users/{id}")] {
            server.resetPeak()
            let result = try await wrk(mode)
            let memory = server.peakRSSMiB()
            guard result.failures + result.socketErrors == 0 else {
                throw ExternalTool.Failed(command: "wrk \(mode)", output: "\(result.failures + result.socketErrors) of \(result.requests) answers were not 200")
            }
            // Issue 15's target is a share of `/health`; `pgbench -S` shows what PostgreSQL alone answers.
            for (reference, value, target) in [("GET /health of the same server", health.perSecond, "≥ 50% of /health, p99 ≤ 5 ms"),
                                               ("pgbench -S, \(connections) clients", pgbench.tps, "—")] {
                figures.append(Figure(
                    name: "status reads: \(name)", workload: "random users of \(dataset.payingUsers), wrk \(connections) connections, \(seconds) s",
                    value: result.perSecond, unit: "requests/s", reference: reference, referenceValue: value,
                    target: target,
                    detail: ["p50 ms": result.p50Ms, "p99 ms": result.p99Ms, "non-200": Double(result.failures + result.socketErrors),
                             "server peak RSS MiB": memory]))
            }
        }
        return figures
    }

    private func wrk(_ mode: String) async throws -> WrkResult {
        try await WrkResult.run(baseURL: server.baseURL, seconds: seconds, connections: connections, environment: [
            "BENCH_MODE": mode, "BENCH_APPS": dataset.appsFile, "BENCH_USERS": "\(dataset.usersPerApp)",
        ])
    }

    /// pgbench's own select-only workload (a primary-key lookup per transaction) on its scale-10 tables.
    private func selectOnly() async throws -> PgbenchResult {
        _ = try await ExternalTool.run([cluster.program("pgbench"), "-i", "-q", "-s", "10", cluster.url])
        return try await PgbenchResult.run(cluster, ["-n", "-S", "-M", "prepared", "-c", "\(connections)", "-j", "2", "-T", "\(seconds)"])
    }
}
