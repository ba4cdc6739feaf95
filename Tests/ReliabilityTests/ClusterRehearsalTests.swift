import AppStoreSamples
import EmbeddedPostgres
import Foundation
import PostgresTestSupport
import Testing
import UTCTime

/// The rehearsal of `Deploy/cluster/rehearse.sh`: the topology of `Deploy/cluster/up.sh` (pg_auto_failover with a
/// primary and a synchronous replica, three ledger instances, HAProxy) under a retrying load of signed notifications
/// and receipt uploads through HAProxy; one ledger instance is SIGKILLed, then the primary PostgreSQL node (failover
/// to the replica). In the end every acknowledged write is in the log exactly once, `ledger replay --check` and
/// `ledger verify` are clean, no answer was a 5xx other than 503, and the figures are printed.
///
/// Runs only when `LEDGER_CLUSTER_REHEARSAL` gives the number of users (rehearse.sh sets it): it needs Debian's
/// pg_auto_failover and HAProxy, which `swift test` does not install.
@Suite struct ClusterRehearsalTests {
    static let users = Int(ProcessInfo.processInfo.environment["LEDGER_CLUSTER_REHEARSAL"] ?? "")

    @Test(.enabled(if: users != nil), .timeLimit(.minutes(20))) func acknowledgedWritesSurviveAnInstanceAndThePrimaryDying() async throws {
        let started = ContinuousClock.now
        let signer = try AppStoreTestSigner()
        let roots = try RootFiles.write(signer)
        let directory = TestScratch.path("cluster")
        let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Deploy/cluster").path
        let base = Int(ProcessInfo.processInfo.environment["CLUSTER_BASE_PORT"] ?? "") ?? 17000
        let environment = [
            "LEDGER_BIN": LedgerBinary.url.path, "LEDGER_APPLE_ROOTS": roots.joined(separator: ":"),
            "LEDGER_ADMIN_TOKEN": LedgerTenant.adminToken, "CLUSTER_BASE_PORT": "\(base)"
        ]
        let up = try await Self.run(["\(scripts)/up.sh", directory], environment: environment)
        #expect(up.status == 0, "\(up.output)")
        defer { _ = try? ProcessRunner.run(["\(scripts)/down.sh", directory]) }
        guard up.status == 0 else { return }
        let topology = try Self.topology(directory + "/topology.env")
        let databaseURL = try #require(topology["CLUSTER_DATABASE_URL"])
        let clusterURL = try #require(topology["CLUSTER_URL"])
        let client = HTTPClient(base: try #require(URL(string: clusterURL)), timeout: 60)

        let histories = try SubscriptionHistories(users: Self.users ?? 60, seed: 61, signer: signer, receipts: true)
        let tenant = try await LedgerTenant.create(client)
        let counters = LoadCounters()
        let sender = RetryingSender(client: client, tenant: tenant, counters: counters, deadline: .now + .seconds(900))
        let lanes = (0..<8).map { lane in stride(from: lane, to: histories.deliveries.count, by: 8).flatMap { histories.deliveries[$0] } }
        let total = histories.all.count
        let load = Task { try await sender.sendAll(lanes) }

        // An instance dies a third of the way in, the primary PostgreSQL node halfway.
        var killed: [String] = []
        var primaryKilledAt: ContinuousClock.Instant?
        for (fraction, target) in [(3, ["ledger", "1"]), (2, ["primary"])] {
            let deadline = ContinuousClock.now + .seconds(600)
            while counters.snapshot.acknowledged < total / fraction && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))  // the load's own pace
            }
            counters.announceKill()
            if target == ["primary"] { primaryKilledAt = .now }
            let kill = try await Self.run(["\(scripts)/kill.sh", directory] + target, environment: [:])
            #expect(kill.status == 0, "\(kill.output)")
            killed.append(kill.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        try await load.value

        let seen = counters.snapshot
        #expect(seen.rejects == 0, "\(seen.rejectTexts.prefix(3))")
        #expect(seen.acknowledged == total)
        let serverErrors = seen.statuses.filter { $0.key >= 500 && $0.key != 503 }
        #expect(serverErrors.isEmpty, "answers other than 503 among the server errors: \(serverErrors) \(seen.serverErrorTexts.prefix(3))")
        #expect(seen.unavailableWithoutRetryAfter == 0, "503 answers without Retry-After")
        #expect(seen.nonJSONErrors == 0, "error answers whose body is not the ledger's JSON error")
        let inspection = LogInspection(databaseURL: databaseURL)
        let keys = try await inspection.idempotencyKeyCounts(app: tenant.appID)
        var missing: [String] = []
        for delivery in histories.all {
            switch delivery.kind {
            case .notification(let uuid): if keys["notification:\(uuid)"] != 1 { missing.append("notification:\(uuid)") }
            case .receipt(_, let ids): for id in ids where keys["tx:\(id)"] != 1 { missing.append("tx:\(id)") }
            }
        }
        #expect(missing.isEmpty, "not recorded exactly once: \(missing.prefix(5)) (\(missing.count) in all)")
        #expect(keys.values.allSatisfy { $0 == 1 })

        try await inspection.waitForProjections(timeout: .seconds(300))
        let replay = try await LedgerBinary.run(["replay", "--check"], databaseURL: databaseURL)
        #expect(replay.status == 0 && replay.output.contains("OK"), "\(replay.output)")
        let verify = try await LedgerBinary.run(["verify"], databaseURL: databaseURL)
        #expect(verify.status == 0, "\(verify.output)")

        let unavailable = seen.firstUnavailable.flatMap { first in seen.lastUnavailable.map { ($0 - first) / .milliseconds(1) } } ?? 0
        let afterPrimary = seen.lastUnavailable.flatMap { last in primaryKilledAt.map { (last - $0) / .milliseconds(1) } } ?? 0
        ReliabilityScale.report(
            "cluster",
            [
                "deliveries": total, "requests": seen.requests, "acknowledged": seen.acknowledged, "retries": seen.retries,
                "transport_errors": seen.transportErrors, "answers_503": seen.statuses[503] ?? 0, "ms_of_503": Int(unavailable),
                "ms_from_primary_kill_to_last_503": Int(afterPrimary), "kills": killed.count,
                "duplicates_absorbed": seen.duplicatesAbsorbed, "seconds": Int((ContinuousClock.now - started) / .seconds(1))
            ])
        FileHandle.standardError.write(Data("cluster: killed \(killed.joined(separator: ", "))\n".utf8))
    }

    static func run(_ arguments: [String], environment: [String: String]) async throws -> ProcessRunner.Result {
        try await ProcessRunner.runOnThread(["/usr/bin/env"] + environment.map { "\($0.key)=\($0.value)" } + arguments)
    }

    /// `KEY=value` lines (values optionally in double quotes).
    static func topology(_ path: String) throws -> [String: String] {
        var values: [String: String] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...]).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return values
    }
}
