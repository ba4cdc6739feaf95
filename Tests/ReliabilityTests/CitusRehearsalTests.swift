import AppStoreSamples
import EmbeddedPostgres
import Foundation
import LedgerStoreTestSupport
import PostgresClient
import PostgresTestSupport
import Testing

/// The rehearsal of `Deploy/citus/rehearse.sh`: a retrying load of signed notifications for many apps (each its own
/// account) through `ledger serve`, once on a single PostgreSQL and once on the Citus cluster of `up.sh`, where a
/// third worker joins and the shards are rebalanced while the load runs. On Citus every acknowledged write is in the log
/// exactly once, no answer was a 5xx other than 503 (with Retry-After), `ledger verify` and `ledger replay --check`
/// are clean, each app's shards are on one worker (Citus' own metadata) and the apps are spread over the workers, and
/// every account's invoices equal the single node's for the same data. The figures of both runs are printed.
///
/// Runs when `LEDGER_CITUS_REHEARSAL` gives the users per app (rehearse.sh sets it) and `LEDGER_TEST_CITUS` the
/// cluster's folder.
@Suite struct CitusRehearsalTests {
    static let usersPerApp = Int(ProcessInfo.processInfo.environment["LEDGER_CITUS_REHEARSAL"] ?? "")
    static let apps = Int(ProcessInfo.processInfo.environment["LEDGER_CITUS_APPS"] ?? "") ?? 50

    /// What one deployment did under the load.
    struct Run {
        var tenants: [LedgerTenant]
        var counts: LoadCounters.Counts
        var loadSeconds: Double
        var events: Int
        var reads: Int
        var readSeconds: Double
        var grewWhileLoaded: Bool?
    }

    @Test(.enabled(if: usersPerApp != nil && CitusTestCluster.isActive), .timeLimit(.minutes(30)))
    func manyAppsLoseNothingAndStayWholeWhileAWorkerJoins() async throws {
        let cluster = try #require(CitusTestCluster.directory)
        let signer = try AppStoreTestSigner()
        let roots = try RootFiles.write(signer)
        let histories = try (0..<Self.apps).map { try SubscriptionHistories(users: Self.usersPerApp ?? 4, seed: 500 + $0, signer: signer) }
        let singleURL = try await TestDatabase.makeDatabase(prefix: "rehearsal_single", on: .faults)
        let citusURL = try await CitusTestCluster.makeDistributedDatabase(prefix: "rehearsal", in: cluster)
        let database = try #require(URL(string: citusURL)?.lastPathComponent)
        let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Deploy/citus").path

        let single = try await Self.run(histories, databaseURL: singleURL, roots: roots, grow: nil)
        let citus = try await Self.run(histories, databaseURL: citusURL, roots: roots) {
            let grown = try await ProcessRunner.runOnThread(["\(scripts)/add-worker.sh", cluster, database])
            #expect(grown.status == 0, "\(grown.output)")
        }

        // Nothing lost, nothing twice, no answer a 5xx but 503 with Retry-After.
        let total = histories.reduce(0) { $0 + $1.all.count }
        for (name, run) in [("single", single), ("citus", citus)] {
            #expect(run.counts.rejects == 0, "\(name): \(run.counts.rejectTexts.prefix(3))")
            #expect(run.counts.acknowledged == total, "\(name)")
            let serverErrors = run.counts.statuses.filter { $0.key >= 500 && $0.key != 503 }
            #expect(serverErrors.isEmpty, "\(name): \(serverErrors) \(run.counts.serverErrorTexts.prefix(3))")
            #expect(run.counts.unavailableWithoutRetryAfter == 0, "\(name): 503 answers without Retry-After")
        }
        let inspection = LogInspection(databaseURL: citusURL)
        var missing: [String] = []
        for (tenant, history) in zip(citus.tenants, histories) {
            let keys = try await inspection.idempotencyKeyCounts(app: tenant.appID)
            for uuid in history.all.compactMap { (delivery: Delivery) in delivery.notificationUUID } where keys["notification:\(uuid)"] != 1 {
                missing.append(uuid)
            }
        }
        #expect(missing.isEmpty, "not recorded exactly once on Citus: \(missing.prefix(5)) (\(missing.count) in all)")

        // The log and the read models hold.
        try await inspection.waitForProjections(timeout: .seconds(300))
        let replay = try await LedgerBinary.run(["replay", "--check"], databaseURL: citusURL)
        #expect(replay.status == 0 && replay.output.contains("OK"), "\(replay.output)")
        let verify = try await LedgerBinary.run(["verify"], databaseURL: citusURL)
        #expect(verify.status == 0, "\(verify.output)")

        // Tenants whole, and spread: each app's rows of every distributed table on one worker, the apps on several.
        let placements = try await Self.workersOfEachApp(citus.tenants.map { $0.appID }, databaseURL: citusURL)
        #expect(
            placements.values.allSatisfy { $0.count == 1 }, "apps whose shards are on several workers: \(placements.filter { $0.value.count != 1 })")
        let workers = Set(placements.values.flatMap { $0 })
        #expect(workers.count >= 3, "the apps live on \(workers.sorted()) after the third worker joined")

        // Invoices: the same data gives the same invoices on one node and on Citus.
        for (index, history) in histories.enumerated() {
            for month in history.payingUsers.keys.sorted() {
                let one = try await Self.draftInvoice(account: single.tenants[index], month: month, databaseURL: singleURL)
                let other = try await Self.draftInvoice(account: citus.tenants[index], month: month, databaseURL: citusURL)
                #expect(one == other && one.contains("\"paying_users\""), "app \(index), \(month):\nsingle \(one)\ncitus  \(other)")
            }
        }

        for (name, run) in [("single", single), ("citus", citus)] {
            ReliabilityScale.report(
                "citus-rehearsal-\(name)",
                [
                    "apps": run.tenants.count, "notifications": total, "requests": run.counts.requests,
                    "answers_503": run.counts.statuses[503] ?? 0, "retries": run.counts.retries,
                    "events": run.events, "events_per_s": Int(Double(run.events) / run.loadSeconds),
                    "notifications_per_s": Int(Double(total) / run.loadSeconds),
                    "status_reads": run.reads, "status_reads_per_s": Int(Double(run.reads) / run.readSeconds),
                    "slowest_ms": run.counts.slowestMilliseconds, "worker_added_while_loaded": run.grewWhileLoaded == true ? 1 : 0
                ])
        }
        #expect(citus.grewWhileLoaded == true, "the rebalance ended after the load: raise LEDGER_CITUS_REHEARSAL")
    }

    /// A server on `databaseURL`; the tenants; the load (8 lanes, an app's deliveries in order on one lane), with `grow`
    /// started a third of the way in; then status reads of every user, 8 at a time.
    static func run(
        _ histories: [SubscriptionHistories], databaseURL: String, roots: [String], grow: (@Sendable () async throws -> Void)?
    ) async throws -> Run {
        let server = try ServerProcess(databaseURL: databaseURL, rootFiles: roots, adminToken: LedgerTenant.adminToken)
        try await server.start()
        defer { server.killNow() }
        let client = HTTPClient(base: server.baseURL, timeout: 60)
        var tenants: [LedgerTenant] = []
        for _ in histories { tenants.append(try await LedgerTenant.create(client)) }
        let counters = LoadCounters()
        let total = histories.reduce(0) { $0 + $1.all.count }
        let started = ContinuousClock.now
        let work = Array(zip(tenants, histories))
        let lanes = (0..<8).map { lane in stride(from: lane, to: work.count, by: 8).map { work[$0] } }
        let load = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in lanes {
                    group.addTask {
                        for (tenant, history) in lane {
                            let sender = RetryingSender(client: client, tenant: tenant, counters: counters, deadline: .now + .seconds(1200))
                            try await sender.sendAll([history.all])
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        var grewWhileLoaded: Bool?
        if let grow {
            while counters.snapshot.acknowledged < total / 3 { try await Task.sleep(for: .milliseconds(20)) }  // the load's own pace
            try await grow()
            grewWhileLoaded = counters.snapshot.acknowledged < total
        }
        try await load.value
        let loadSeconds = Double((ContinuousClock.now - started) / .milliseconds(1)) / 1000
        let events = try await LogInspection(databaseURL: databaseURL).eventCount()

        let readsStarted = ContinuousClock.now
        let users = work.flatMap { tenant, history in history.users.map { (tenant, $0) } }
        let readLanes = (0..<8).map { lane in stride(from: lane, to: users.count, by: 8).map { users[$0] } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in readLanes {
                group.addTask {
                    for (tenant, user) in lane {
                        let answer = try await client.send("GET", "/v1/users/\(user)", headers: tenant.secret)
                        #expect(answer.status == 200, "\(answer.text)")
                    }
                }
            }
            try await group.waitForAll()
        }
        let readSeconds = Double((ContinuousClock.now - readsStarted) / .milliseconds(1)) / 1000
        return Run(
            tenants: tenants, counts: counters.snapshot, loadSeconds: loadSeconds, events: events, reads: users.count,
            readSeconds: readSeconds, grewWhileLoaded: grewWhileLoaded)
    }

    /// Per app, the ports of the workers holding its shard of every distributed table (Citus' metadata).
    static func workersOfEachApp(_ apps: [String], databaseURL: String) async throws -> [String: Set<Int>] {
        try await Blocking.run {
            let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: databaseURL))
            var workers: [String: Set<Int>] = [:]
            for app in apps {
                let rows = try connection.query(
                    """
                    SELECT DISTINCT n.nodeport FROM pg_dist_partition d
                    JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column(d.logicalrelid, \(app))
                    JOIN pg_dist_node n ON n.groupid = p.groupid
                    WHERE d.partmethod = 'h'
                    """)
                workers[app] = Set(try rows.map { Int(try $0.decode(Int32.self, at: 0)) })
            }
            return workers
        }
    }

    /// `ledger invoices draft` of the tenant's account for `month`, its identifiers (account, apps, dates of drafting)
    /// left out so that two deployments' drafts compare.
    static func draftInvoice(account tenant: LedgerTenant, month: String, databaseURL: String) async throws -> String {
        let draft = try await LedgerBinary.run(["invoices", "draft", "--account", tenant.accountID, "--month", month], databaseURL: databaseURL)
        #expect(draft.status == 0, "\(draft.output)")
        return draft.output.replacingOccurrences(of: tenant.accountID, with: "ACCOUNT").replacingOccurrences(of: tenant.appID, with: "APP")
            .replacing(#/"(generated_at|drafted_at|computed_at)":"[^"]*"/#, with: "")
    }
}
