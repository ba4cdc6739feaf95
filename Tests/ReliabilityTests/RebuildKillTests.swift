import EmbeddedPostgres
import Foundation
import Glibc
import LedgerDomain
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// `ledger replay` (the rebuild: fold-and-COPY into `ledger_rebuild`, then a swap) SIGKILLed while it folds, again
/// and again, on a log large enough to take a while. The live tables stay exactly as they were and keep answering;
/// the next rebuild drops the leftovers and completes, and `ledger replay --check` finds nothing to report.
@Suite struct RebuildKillTests {
    static let app = "app"

    @Test func aRebuildKilledWhileItFoldsLeavesTheLiveTablesAsTheyWere() async throws {
        let started = ContinuousClock.now
        let users = ReliabilityScale.pick(ci: 50_000, full: 200_000)
        let kills = ReliabilityScale.pick(ci: 3, full: 8)
        var random = SplitMix64(state: UInt64(UInt32.random(in: 1...UInt32.max)))
        let seed = random.state
        let databaseURL = try await TestDatabase.makeDatabase(prefix: "rebuildkill", on: .rebuilds)
        let pool = try await LedgerDatabase.open(connectionString: databaseURL, poolSize: 2, migrations: try SchemaLocation.migrations())
        let inspection = LogInspection(databaseURL: databaseURL)

        // The log: one subscription per user written by PostgreSQL itself, then renewals, links naming two purchases in
        // one event (stray for the second) and consumables through the store, so every read model has rows.
        try await SyntheticPayingUsers.insert(on: pool, app: Self.app, prefix: "k", users: users, day: Self.day(2))
        let recorder = EventRecorder(store: EventStore(pool: pool))
        for index in 1...300 {
            let renewal = LedgerEvent.subscriptionRenewed(
                Renewal(
                    transaction: TransactionFacts(
                        productID: "monthly", transactionID: "k\(index)-r1", originalTransactionID: "k\(index)", purchaseDate: Self.day(32),
                        expiresDate: Self.day(62), signedDate: Self.day(32))))
            let link = LedgerEvent.linked(
                TransactionLink(
                    appUserID: "user-k\(index)", originalTransactionIDs: ["k\(index)", "c\(index)"],
                    linkedAt: Self.day(33), source: .restore))
            let coins = LedgerEvent.purchaseConsumable(
                Purchase(
                    transaction: TransactionFacts(
                        appUserID: index % 2 == 0 ? "user-k\(index)" : nil, productID: "coins", transactionID: "c\(index)",
                        originalTransactionID: "c\(index)",
                        purchaseDate: Self.day(34), signedDate: Self.day(34), developerPayload: "level\t\(index)")))
            _ = try await recorder.record(
                app: Self.app,
                [
                    ("otx:k\(index)", renewal, renewal.idempotencyKey), ("otx:k\(index)", link, link.idempotencyKey),
                    ("otx:c\(index)", coins, coins.idempotencyKey)
                ], occurredAt: { _ in Self.day(34) }, metadata: EventMetadata(source: "test"))
        }
        let events = try await inspection.eventCount()
        // A rebuild folds the transactions below the server-wide commit horizon: wait until it has passed them all.
        try await TestDatabase.waitForHorizon(databaseURL)

        // The read models built once by a rebuild that runs to its end.
        let first = try await LedgerBinary.run(["replay"], databaseURL: databaseURL)
        #expect(first.status == 0, "\(first.output)")
        let before = try await Blocking.run { try Self.snapshot(inspection) }
        // Each link names a consumable too, which gets an (owner-only) subscription row: users + 300.
        #expect(before.counts["subscriptions"] == Int64(users + 300), "\(before.counts)")
        #expect((before.counts["purchases"] ?? 0) >= 300 && (before.counts["paying_users"] ?? 0) >= Int64(users))

        var killedWhileFolding = 0
        var thresholds: [Int] = []
        for _ in 0..<kills {
            // Kill once the fold has reported a random number of events, always before its last report.
            let threshold = 10_000 * Int.random(in: 1...max(1, events / 10_000 - 1), using: &random)
            thresholds.append(threshold)
            let child = try RebuildProcess.start(databaseURL: databaseURL)
            let reached = try await child.waitForProgress(atLeast: threshold, timeout: .seconds(300))
            // Reads answer while the rebuild holds its snapshot open and copies.
            let owned = try await UserQueries(pool: pool).summaries(app: Self.app, owners: ["user-k1", "user-k2"])
            #expect(Set(owned.subscriptions.filter(\.isKnown).map(\.originalTransactionID)) == ["k1", "k2"])
            let status = await child.kill()
            #expect(reached, "the rebuild exited before it reported \(threshold) events: \(child.output)")
            #expect(status == 128 + SIGKILL, "the rebuild was not killed midway (exit \(status)): \(child.output)")
            #expect(!child.output.contains("rebuilt"), "\(child.output)")
            if reached && status == 128 + SIGKILL { killedWhileFolding += 1 }

            // The live tables are exactly as before, their checkpoints too; the leftovers are the scratch schema.
            #expect(try await Blocking.run { try Self.snapshot(inspection) } == before, "threshold \(threshold), seed \(seed)")
            let answer = try await UserQueries(pool: pool).summaries(app: Self.app, owners: ["user-k2"])
            #expect(answer.subscriptions.filter(\.isKnown).map(\.originalTransactionID) == ["k2"])
            #expect(answer.purchases.filter { $0.details != nil }.map(\.originalTransactionID) == ["c2"])
            try await Self.waitUntilTheRebuildLockIsFree(databaseURL)
        }
        #expect(killedWhileFolding == kills)

        // The next rebuild drops the leftovers and completes; the check finds the live tables equal to the log.
        let again = try await LedgerBinary.run(["replay"], databaseURL: databaseURL)
        #expect(again.status == 0 && again.output.contains("rebuilt"), "\(again.output)")
        // The same rows (the checkpoints moved on to the new rebuild's cut).
        let after = try await Blocking.run { try Self.snapshot(inspection) }
        #expect(after.counts == before.counts && after.digests == before.digests)
        #expect(after.checkpoints.count == ProjectionCatalog.names.count && after.checkpoints != before.checkpoints)
        let check = try await LedgerBinary.run(["replay", "--check"], databaseURL: databaseURL)
        #expect(check.status == 0 && check.output.contains("OK"), "\(check.output)")
        let leftovers = try await pool.query("SELECT count(*) FROM pg_namespace WHERE nspname IN ('ledger_rebuild', 'ledger_check')")
            .first?.decode(Int64.self, at: 0)
        #expect(leftovers == 0)

        await pool.shutdown()
        ReliabilityScale.report(
            "rebuild-kill",
            [
                "events": events, "kills_while_folding": killedWhileFolding, "lowest_kill_point": thresholds.min() ?? 0,
                "highest_kill_point": thresholds.max() ?? 0, "seconds": Int((ContinuousClock.now - started) / .seconds(1))
            ])
    }

    static func day(_ n: Int64) -> Instant { Instant(microsecondsSinceEpoch: 1_767_225_600_000_000 + n * 86_400_000_000) }

    /// What must survive a killed rebuild: per read model table its row count and a digest of every row, and the
    /// projections' checkpoints.
    struct Snapshot: Equatable {
        var counts: [String: Int64]
        var digests: [String: String]
        var checkpoints: [String]
    }

    static func snapshot(_ inspection: LogInspection) throws -> Snapshot {
        let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: inspection.databaseURL))
        var snapshot = Snapshot(counts: [:], digests: [:], checkpoints: [])
        for table in ["subscriptions", "purchases", "paying_purchases", "paying_users"] {
            let row = try connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT count(*), coalesce(md5(string_agg(to_jsonb(t)::text, E'\\n' ORDER BY to_jsonb(t)::text)), '') FROM ledger.\(table) t
                        """)
            ).first!
            snapshot.counts[table] = try row.decode(Int64.self, at: 0)
            snapshot.digests[table] = try row.decode(String.self, at: 1)
        }
        snapshot.checkpoints = try connection.query(
            """
            SELECT projection || ' ' || transaction_id::text || ' ' || position FROM ledger.projection_checkpoints ORDER BY 1
            """
        ).map { try $0.decode(String.self, at: 0) }
        return snapshot
    }

    /// The killed process's sessions end when PostgreSQL notices the closed connections; until then its rebuild lock
    /// is held and a new rebuild would be refused. Polls for the lock (taking and releasing it).
    static func waitUntilTheRebuildLockIsFree(_ databaseURL: String, timeout: Duration = .seconds(60)) async throws {
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: databaseURL), size: 1)
        defer { Task { await pool.shutdown() } }
        let deadline = ContinuousClock.now + timeout
        while true {
            // Session-level lock and unlock on the same connection, so a lock taken is never left with the pool.
            let free = try await pool.withConnection { connection in
                let taken = try connection.query("SELECT pg_try_advisory_lock(hashtext('ledger.rebuild'))").first?.decode(Bool.self, at: 0) == true
                if taken { try connection.query("SELECT pg_advisory_unlock(hashtext('ledger.rebuild'))") }
                return taken
            }
            if free { return }
            guard ContinuousClock.now < deadline else { throw RebuildProcess.Failure.lockStillHeld }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// SplitMix64, so a failing kill schedule can be replayed from the seed the test prints.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One `ledger replay` child process, its progress on a non-terminal standard error (a line per report).
final class RebuildProcess {
    enum Failure: Error { case lockStillHeld }

    let process: Process
    let stderrPath: String
    let stdoutPath: String

    private init(process: Process, stdoutPath: String, stderrPath: String) {
        self.process = process
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath
    }

    static func start(databaseURL: String) throws -> RebuildProcess {
        let (out, err) = (TestScratch.path("replay.stdout"), TestScratch.path("replay.stderr"))
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        let process = Process()
        process.executableURL = LedgerBinary.url
        process.arguments = ["replay", "--database-url", databaseURL]
        var environment = ProcessInfo.processInfo.environment
        environment["LEDGER_PROGRESS_INTERVAL"] = "0"
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try process.run()
        return RebuildProcess(process: process, stdoutPath: out, stderrPath: err)
    }

    var output: String {
        ((try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "") + ((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
    }

    /// The most events a progress line (`replay: 20000 of 60900 events (32%), …`) has reported so far.
    var reported: Int {
        let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix("replay: ") else { return nil }
            return Int(line.dropFirst("replay: ".count).prefix { $0.isNumber })
        }.max() ?? 0
    }

    /// Polls until the rebuild has reported at least `count` events (true) or has exited (false).
    func waitForProgress(atLeast count: Int, timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if reported >= count { return true }
            if !process.isRunning { return reported >= count }
            try await Task.sleep(for: .milliseconds(2))
        }
        return false
    }

    /// SIGKILL, and the exit status as a shell reports it (128 + signal when killed).
    func kill() async -> Int32 {
        await ChildProcess.kill(process)
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }
}
