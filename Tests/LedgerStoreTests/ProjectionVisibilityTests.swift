import LedgerDomain
@testable import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// The read-your-writes state machine, driven directly.
@Suite struct ProjectionProgressStateTests {
    static func at(_ transaction: UInt64, _ position: Int64) -> LogCheckpoint { LogCheckpoint(transactionID: transaction, position: position) }

    @Test func aWaitIsReachedOnlyWhenEveryProjectionHasPassedIt() {
        var state = ProjectionProgressState(projections: ["a", "b"])
        #expect(state.frontier == nil)
        guard case .waiting(let first) = state.register(Self.at(10, 5)) else { Issue.record("nothing applied yet"); return }
        guard case .waiting(let second) = state.register(Self.at(20, 9)) else { Issue.record("nothing applied yet"); return }
        let onlyA = state.advance("a", to: Self.at(30, 1))
        #expect(onlyA == [], "b has not reported")
        let slowB = state.advance("b", to: Self.at(10, 5))
        #expect(slowB == [first], "the frontier is the slowest projection")
        let fasterB = state.advance("b", to: Self.at(25, 0))
        #expect(fasterB == [second])
        #expect(state.waiting == 0)
        let late = state.register(Self.at(24, 7))
        #expect(late == .reached)
    }

    @Test func checkpointsOnlyMoveForwardAndOtherNamesAreIgnored() {
        var state = ProjectionProgressState(projections: ["a"])
        _ = state.advance("a", to: Self.at(9, 9))
        _ = state.advance("a", to: Self.at(3, 3))  // an older read of the database, after the worker's report
        _ = state.advance("elsewhere", to: Self.at(99, 99))
        #expect(state.frontier == Self.at(9, 9))
        #expect(state.checkpoints.keys.sorted() == ["a"])
    }

    @Test func aCancelledWaitIsNeverReturned() {
        var state = ProjectionProgressState(projections: ["a"])
        guard case .waiting(let id) = state.register(Self.at(5, 5)) else { Issue.record("must wait"); return }
        let (cancelled, again) = (state.cancel(id), state.cancel(id))
        #expect(cancelled && !again)
        let reached = state.advance("a", to: Self.at(6, 6))
        #expect(reached == [])
    }
}

/// Read-your-writes against a real PostgreSQL, with the projection worker running as in `serve`.
@Suite struct ProjectionVisibilityTests {
    func append(_ fixture: StoreFixture, _ key: String, app appID: String = "app") async throws -> Int64 {
        let facts = TransactionFacts(
            appUserID: "u1", productID: "coins", transactionID: key, originalTransactionID: key,
            purchaseDate: Instant(microsecondsSinceEpoch: 1_767_225_600_000_000),
            signedDate: Instant(microsecondsSinceEpoch: 1_767_225_600_000_000))
        let event = LedgerEvent.purchaseConsumable(Purchase(transaction: facts))
        let result = try await fixture.store.append(
            app: appID, stream: LedgerStreams.purchase(originalTransactionID: key),
            events: [
                NewEvent(
                    event, idempotencyKey: event.idempotencyKey,
                    occurredAt: facts.purchaseDate, metadata: EventMetadata())
            ])
        return try #require(result.positions.first)
    }

    @Test func theWorkersCommitWakesTheWaitWithoutReadingTheDatabase() async throws {
        let fixture = try await StoreFixture.make()
        let progress = ProjectionProgress()
        // The database is read once at the start and then not for ten minutes: only the worker's report can end
        // the wait in time.
        let visibility = ProjectionVisibility(pool: fixture.store.pool, progress: progress, fallbackInterval: .seconds(600))
        let worker = Task {
            await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners(), progress: progress).run()
        }
        for index in 0..<3 {
            let position = try await append(fixture, "c\(index)")
            #expect(try await visibility.wait(app: "app", positions: [position], timeout: .seconds(60)))
            let read = try await UserQueries(pool: fixture.store.pool).summaries(app: "app", owners: ["u1"])
            #expect(read.purchases.contains { $0.originalTransactionID == "c\(index)" }, "a read after the wait sees the write")
        }
        worker.cancel()
        await worker.value
        await fixture.close()
    }

    @Test func aWorkerElsewhereIsSeenThroughTheDatabaseAndNoWorkerMeansATimeout() async throws {
        let fixture = try await StoreFixture.make()
        // This process's progress hears nothing: the worker reports to another one (another instance).
        let visibility = ProjectionVisibility(pool: fixture.store.pool, progress: ProjectionProgress(), fallbackInterval: .milliseconds(10))
        let position = try await append(fixture, "c0")
        #expect(!(try await visibility.wait(app: "app", positions: [position], timeout: .milliseconds(100))), "nothing projects yet")
        let worker = Task {
            await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners(), progress: ProjectionProgress()).run()
        }
        #expect(try await visibility.wait(app: "app", positions: [position], timeout: .seconds(60)))
        #expect(try await visibility.wait(app: "app", positions: [], timeout: .seconds(1)), "nothing to wait for")
        worker.cancel()
        await worker.value
        await fixture.close()
    }

    /// A wait shorter than one read of the checkpoints still answers what that read found (under load the read alone
    /// outlasted a status read's remaining wait, which then refused a write the projections had applied); a check
    /// with no time left reads them once.
    @Test func aWaitThatEndsDuringItsReadJudgesWhatTheReadFound() async throws {
        let fixture = try await StoreFixture.make()
        let position = try await append(fixture, "c0")
        try await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
        let target = try #require(try await ProjectionVisibility(pool: fixture.store.pool).newest(app: "app", positions: [position]))
        let waiting = ProjectionVisibility(pool: fixture.store.pool, progress: ProjectionProgress())
        #expect(try await waiting.wait(for: target, timeout: .nanoseconds(1)))
        #expect(try await ProjectionVisibility(pool: fixture.store.pool, progress: ProjectionProgress()).includes(target, within: .zero))
        let ahead = LogCheckpoint(transactionID: target.transactionID + 1_000_000, position: target.position + 1)
        #expect(!(try await waiting.includes(ahead, within: .zero)))
        #expect(!(try await waiting.includes(ahead, within: .milliseconds(30))))
        await fixture.close()
    }

    /// The write's events are found by position even for an app the statistics do not know (not by reading the
    /// app's events backwards in log order).
    @Test(.disabled(if: CitusTestCluster.isActive, "counts the coordinator's index scans; on Citus they run on the workers"))
    func aNewAppsWriteIsFoundByPosition() async throws {
        let fixture = try await StoreFixture.make()
        for index in 0..<300 { _ = try await append(fixture, "old-\(index)") }
        try await fixture.superuser.query("ANALYZE ledger.events")
        var positions: [Int64] = []
        for index in 0..<300 { positions.append(try await append(fixture, "n\(index)", app: "app-new")) }
        // The waits run on a pool of their own with one connection, so one flush publishes all their counters. (The
        // appends' counters may reach the shared ones later; they scan neither of the indexes asserted on here.)
        let reads = PostgresPool(configuration: PostgresConfiguration(connectionString: fixture.connectionString), size: 1)
        try await EventIndexScans.reset(fixture.superuser)
        let visibility = ProjectionVisibility(pool: reads, progress: ProjectionProgress(), fallbackInterval: .milliseconds(5))
        for position in positions.suffix(20) {
            #expect(!(try await visibility.wait(app: "app-new", positions: [position], timeout: .milliseconds(10))), "nothing projects")
        }
        try await EventIndexScans.flush(reads)
        let scans = try await EventIndexScans.counts(fixture.superuser)
        #expect(scans["events_app_transaction_order"] == 0, "\(scans)")
        #expect((scans["events_position"] ?? 0) + (scans["events_pkey"] ?? 0) >= 20, "\(scans)")
        await reads.shutdown()
        await fixture.close()
    }

    /// On a log never analyzed (a new install), a service connection (generic plans) that plans the write's lookup
    /// must still find the events by position: a plan made for an empty table scanned the whole log for every
    /// write until autovacuum analyzed it (a quarter of the CPU of the ingest benchmark on a fresh log).
    @Test(.disabled(if: CitusTestCluster.isActive, "counts the coordinator's scans; on Citus they run on the workers"))
    func aWriteOnALogNeverAnalyzedIsFoundByPosition() async throws {
        let fixture = try await StoreFixture.make()
        var positions: [Int64] = []
        for index in 0..<30 { positions.append(try await append(fixture, "n\(index)")) }
        let reads = PostgresPool(configuration: fixture.store.pool.configuration, size: 1)
        let analyzed = try await fixture.superuser.query(
            "SELECT last_analyze IS NULL AND last_autoanalyze IS NULL FROM pg_stat_user_tables WHERE relid = 'ledger.events'::regclass")
        #expect(try analyzed.first?.decode(Bool.self, at: 0) == true, "the log must never have been analyzed for this test")
        try await fixture.superuser.query("SELECT pg_stat_reset_single_table_counters('ledger.events'::regclass)")
        let visibility = ProjectionVisibility(pool: reads, progress: ProjectionProgress(), fallbackInterval: .milliseconds(5))
        for position in positions.suffix(20) {
            #expect(!(try await visibility.wait(app: "app", positions: [position], timeout: .milliseconds(10))), "nothing projects")
        }
        try await EventIndexScans.flush(reads)
        let scans = try await fixture.superuser.query("SELECT seq_scan FROM pg_stat_user_tables WHERE relid = 'ledger.events'::regclass")
        #expect(try scans.first?.decode(Int64.self, at: 0) == 0, "sequential scans of the log")
        await reads.shutdown()
        await fixture.close()
    }
}
