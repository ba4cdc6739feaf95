import AppStoreSamples
import Crypto
import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

/// Three `ledger serve` instances on one database: each job that must run once (signing digests) runs on exactly one
/// of them, and moves to another when that one is SIGKILLed. The proof is the instances' own `/metrics`
/// (`ledger_job_leader`), PostgreSQL's lock table, and the digests themselves (one signer: never two digests of an
/// app within less than the interval).
@Suite struct JobsAcrossInstancesTests {
    @Test(.timeLimit(.minutes(10))) func aJobRunsOnOneInstanceAndMovesWhenItDies() async throws {
        let signer = try AppStoreTestSigner()
        let databaseURL = try await TestDatabase.makeDatabase(prefix: "jobs", on: .faults)
        let keyFile = TestScratch.path("jobs-signing-key")
        try Array(Curve25519.Signing.PrivateKey().rawRepresentation).map { String(format: "%02x", $0) }.joined()
            .write(toFile: keyFile, atomically: true, encoding: .utf8)
        let roots = try RootFiles.write(signer)
        let servers = try (0..<3).map { _ in
            try ServerProcess(
                databaseURL: databaseURL, rootFiles: roots, adminToken: LedgerTenant.adminToken,
                extraArguments: ["--signing-key", keyFile, "--digest-interval", "1"],
                extraEnvironment: ["LEDGER_JOB_RETRY_SECONDS": "1"])
        }
        defer { for server in servers { server.killNow() } }
        for server in servers { try await server.start() }
        // An app with events, so every digest round signs one.
        let client = HTTPClient(base: servers[0].baseURL, timeout: 30)
        let tenant = try await LedgerTenant.create(client)
        let history = try SubscriptionHistories(users: 1, seed: 41, signer: signer)
        for delivery in history.all { _ = try await RetryingSender(client: client, tenant: tenant, counters: LoadCounters()).send(delivery) }

        // 1. Exactly one leader, the same one in /metrics and in PostgreSQL's locks.
        let leader = try await Self.soleLeader(among: servers)
        #expect(try await Self.lockHolders(databaseURL) == 1)
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: databaseURL), size: 1)
        defer { Task { await pool.shutdown() } }
        try await Self.waitForDigests(pool, atLeast: 4)

        // 2. The leader dies; one of the other two takes the job and signs on.
        let before = try await Self.digestCount(pool)
        await leader.kill()
        let survivors = servers.filter { $0 !== leader }
        let next = try await Self.soleLeader(among: survivors)
        #expect(next !== leader)
        try await Self.waitForDigests(pool, atLeast: before + 3)
        #expect(try await Self.lockHolders(databaseURL) == 1)

        // 3. One signer at a time: consecutive digests (after the first of each leader) are an interval apart.
        let gaps = try await pool.query(
            """
            SELECT (extract(epoch FROM created_at - lag(created_at) OVER (ORDER BY digest_id)) * 1000)::int8
            FROM ledger.chain_digests ORDER BY digest_id
            """
        ).compactMap { try $0.decode(Int64?.self, at: 0) }
        let closeTogether = gaps.filter { $0 < 500 }
        #expect(closeTogether.count <= 1, "digests signed less than half an interval apart: \(gaps)")  // at most the takeover
        for server in survivors { _ = await server.stop() }
    }

    /// The one instance whose /metrics says it holds "digests" (the others say 0), once that has settled.
    static func soleLeader(among servers: [ServerProcess]) async throws -> ServerProcess {
        let deadline = ContinuousClock.now + .seconds(60)
        var last: [Int] = []
        while ContinuousClock.now < deadline {
            last = []
            for server in servers {
                let metrics = try? await HTTPClient(base: server.baseURL, timeout: 10).send("GET", "/metrics")
                last.append(metrics?.text.contains(#"ledger_job_leader{job="digests"} 1"#) == true ? 1 : 0)
            }
            if last.reduce(0, +) == 1, let index = last.firstIndex(of: 1) { return servers[index] }
            try await Task.sleep(for: .milliseconds(100))  // the instances report on their own schedule
        }
        Issue.record("no single leader of the digests job within 60 s: \(last)")
        throw CancellationError()
    }

    /// Sessions holding the digests job's advisory lock.
    static func lockHolders(_ databaseURL: String) async throws -> Int64 {
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: databaseURL), size: 1)
        defer { Task { await pool.shutdown() } }
        return try await pool.query(
            """
            SELECT count(*) FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND classid = hashtext('ledger.job')::bit(32)::int8::oid AND objid = hashtext('digests')::bit(32)::int8::oid AND objsubid = 2
            """
        ).first?.decode(Int64.self, at: 0) ?? 0
    }

    static func digestCount(_ pool: PostgresPool) async throws -> Int64 {
        try await pool.query("SELECT count(*) FROM ledger.chain_digests").first?.decode(Int64.self, at: 0) ?? 0
    }

    static func waitForDigests(_ pool: PostgresPool, atLeast count: Int64) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await digestCount(pool) < count {
            guard ContinuousClock.now < deadline else {
                Issue.record("fewer than \(count) digests within 60 s")
                return
            }
            try await Task.sleep(for: .milliseconds(100))  // digests are signed on the instances' schedule
        }
    }
}
