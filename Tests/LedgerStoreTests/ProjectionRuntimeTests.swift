import Foundation
import LedgerDomain
import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// The projection runtime against a real PostgreSQL: live tables equal a pure fold of the log, concurrent workers
/// apply each event once, and `replay --check` finds a row that no longer matches the log.
@Suite struct ProjectionRuntimeTests {
    static let start = Instant(microsecondsSinceEpoch: 1_767_225_600_000_000)  // 2026-01-01T00:00:00Z
    static func day(_ n: Int64) -> Instant { Instant(microsecondsSinceEpoch: start.microsecondsSinceEpoch + n * 86_400_000_000) }

    /// A subscription started, renewed twice, then expired; plus a consumable; for `users` users.
    static func history(users: Int) -> [LedgerEvent] {
        (0..<users).flatMap { user -> [LedgerEvent] in
            func facts(_ n: Int64) -> TransactionFacts {
                TransactionFacts(
                    appUserID: "user-\(user)", productID: "monthly", transactionID: "t\(user)-\(n)",
                    originalTransactionID: "o\(user)", subscriptionGroupID: "g1", purchaseDate: day(n * 30),
                    expiresDate: day(n * 30 + 30), signedDate: day(n * 30), price: Money(milliunits: 9_990, currency: "USD"))
            }
            let reference = SubscriptionRef(
                appUserID: "user-\(user)", productID: "monthly", originalTransactionID: "o\(user)",
                subscriptionGroupID: "g1", signedDate: day(95))
            return [
                .subscriptionStarted(SubscriptionStarted(transaction: facts(0), isResubscribe: false)),
                .subscriptionRenewed(Renewal(transaction: facts(1))),
                .subscriptionRenewed(Renewal(transaction: facts(2))),
                .subscriptionExpired(Expiry(subscription: reference, reason: .voluntary, expiresDate: day(90))),
                .purchaseConsumable(
                    Purchase(
                        transaction: TransactionFacts(
                            appUserID: "user-\(user)", productID: "coins", transactionID: "c\(user)", originalTransactionID: "c\(user)",
                            purchaseDate: day(3), signedDate: day(3), developerPayload: "level \(user)")))
            ]
        }
    }

    static func append(_ events: [LedgerEvent], app: String, to store: EventStore) async throws {
        for event in events {
            let encoded = event.encoded()
            _ = try await store.append(
                app: app, stream: "sub-\(event.idempotencyKey.hashValue % 7)",
                events: [
                    NewEvent(
                        type: encoded.type, schemaVersion: encoded.schemaVersion, payload: encoded.payload,
                        idempotencyKey: event.idempotencyKey, occurredAt: LedgerClock.system.now())
                ])
        }
    }

    /// `app/original transaction id` → the subscription's stored fold state.
    static func liveSubscriptions(pool: PostgresPool) async throws -> [String: String] {
        let rows = try await pool.query("SELECT app_id || '/' || original_transaction_id, fold_state::text FROM ledger.subscriptions")
        return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) })
    }

    /// Every row of every read model table, as JSON, in key order.
    static func readModelRows(pool: PostgresPool) async throws -> [String] {
        var rows: [String] = []
        for table in ["subscriptions", "purchases", "paying_purchases", "paying_users", "user_grants"] {
            rows += try await pool.query(PostgresQuery(unsafeSQL: "SELECT to_jsonb(t)::text FROM ledger.\(table) t ORDER BY 1"))
                .map { "\(table) " + (try $0.decode(String.self, at: 0)) }
        }
        return rows
    }

    @Test func liveStatesEqualAPureFoldOfTheLog() async throws {
        let fixture = try await StoreFixture.make()
        try await Self.append(Self.history(users: 5), app: "app", to: fixture.store)
        _ = try await fixture.store.append(app: "app", stream: "other", events: [event("not-a-domain-event")])  // skipped
        let worker = ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners())
        let applied = try await worker.catchUpThroughNow()
        #expect(applied == 5 * 4 * 5 + 4)  // every event read once per projection (4 projections)

        let events = try await fixture.store.pool.withConnection { try ProjectionReplay.events(app: "app", asOf: nil, on: $0) }
        let expected = foldAll(SubscriptionStatusReducer.self, events: events, asOf: nil)
        let live = try await Self.liveSubscriptions(pool: fixture.superuser)
        #expect(live.count == expected.count)
        for (key, state) in expected {
            let stored = try #require(live["app/" + key])
            #expect(try StateCodec.decode(SubscriptionStatus.self, from: stored) == state)
        }
        #expect(try await worker.catchUp() == 0)  // nothing applied twice
        await fixture.close()
    }

    /// A failure after the states are written but before the checkpoint (injected by a trigger, standing in for a
    /// crash) leaves neither states nor checkpoint behind; the next run starts from the old checkpoint.
    @Test(.disabled(if: CitusTestCluster.isActive, "its crash trigger is single-node DDL")) func aBatchThatFailsMidwayLeavesNothingBehind()
        async throws
    {
        let fixture = try await StoreFixture.make()
        try await Self.append(Self.history(users: 3), app: "app", to: fixture.store)
        try await fixture.superuser.withConnection { connection in
            try connection.execute(
                """
                CREATE TABLE public.crash_switch (armed boolean NOT NULL);
                INSERT INTO public.crash_switch VALUES (true);
                CREATE FUNCTION public.crash_before_checkpoint() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF (SELECT armed FROM public.crash_switch) THEN RAISE EXCEPTION 'simulated crash'; END IF;
                    RETURN NEW;
                END $$;
                CREATE TRIGGER crash BEFORE INSERT OR UPDATE ON ledger.projection_checkpoints
                    FOR EACH ROW EXECUTE FUNCTION public.crash_before_checkpoint();
                GRANT SELECT ON public.crash_switch TO PUBLIC;
                """)
        }
        let worker = ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners())
        // The batch must see the events: past the server-wide commit horizon, which another test's open transaction
        // (a rebuild's read, say) may hold back.
        try await TestDatabase.waitForHorizon(fixture.connectionString)
        await #expect(throws: PostgresError.self) { try await worker.catchUp() }
        let leftovers = try await fixture.superuser.query(
            """
            SELECT (SELECT count(*) FROM ledger.subscriptions) + (SELECT count(*) FROM ledger.purchases)
                 + (SELECT count(*) FROM ledger.paying_users) + (SELECT count(*) FROM ledger.projection_checkpoints)
            """
        ).first?.decode(Int64.self, at: 0)
        #expect(leftovers == 0)

        try await fixture.superuser.query("UPDATE public.crash_switch SET armed = false")
        try await worker.catchUpThroughNow()
        let clean = try await ProjectionReplay.check(pool: fixture.store.pool)
        #expect(clean.isEmpty)
        await fixture.close()
    }

    @Test func concurrentWorkersApplyEachEventOnce() async throws {
        let fixture = try await StoreFixture.make()
        try await Self.append(Self.history(users: 8), app: "app", to: fixture.store)
        let single = try await StoreFixture.make()
        try await Self.append(Self.history(users: 8), app: "app", to: single.store)
        try await ProjectionWorker(pool: single.store.pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()

        // Four instances at once, small batches, on one database: the advisory lock lets one apply each batch.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask { try await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners()).catchUp() }
            }
            try await group.waitForAll()
        }
        // Another instance may have stopped early while one held the lock: finish, then compare.
        try await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
        let concurrent = try await Self.readModelRows(pool: fixture.superuser)
        #expect(!concurrent.isEmpty)
        #expect(concurrent == (try await Self.readModelRows(pool: single.superuser)))
        await fixture.close()
        await single.close()
    }

    @Test func checkFindsALiveRowThatNoLongerMatchesTheLog() async throws {
        let fixture = try await StoreFixture.make()
        try await Self.append(Self.history(users: 3), app: "app", to: fixture.store)
        let runners = ProjectionCatalog.runners()
        try await ProjectionWorker(pool: fixture.store.pool, runners: runners).catchUpThroughNow()
        let clean = try await ProjectionReplay.check(pool: fixture.store.pool)
        #expect(clean.isEmpty)

        try await fixture.superuser.query("UPDATE ledger.subscriptions SET product_id = 'tampered' WHERE original_transaction_id = 'o1'")
        try await fixture.superuser.query("DELETE FROM ledger.purchases WHERE original_transaction_id = 'c2'")
        try await fixture.superuser.query("UPDATE ledger.paying_users SET app_user_id = 'someone' WHERE original_transaction_id = 'o2'")
        let differences = try await ProjectionReplay.check(pool: fixture.store.pool)
        #expect(
            Set(differences.map { "\($0.table)/\($0.key)" }) == [
                "subscriptions/o1", "purchases/c2", "paying_users/o2|2026-01",
                "paying_users/o2|2026-03"
            ])
        #expect(differences.first { $0.key == "c2" }?.live == nil)
        #expect(differences.first { $0.key == "o1" }?.live?.contains("tampered") == true)

        // A rebuild repairs the live tables.
        #expect(try await ProjectionReplay.rebuild(pool: fixture.store.pool) == 3 * 5)
        #expect(try await ProjectionReplay.check(pool: fixture.store.pool).isEmpty)
        // And leaves its progress for the services' metrics (`ledger_rebuild_*`): finished, every event counted.
        let progress = try #require(
            try await fixture.superuser.query(
                "SELECT status, events_done, events_estimated, projections FROM ledger.rebuild_progress"
            ).first)
        #expect(try progress.decode(String.self, at: 0) == "finished")
        #expect(try progress.decode(Int64.self, at: 1) == 3 * 5)
        #expect(try progress.decode(Int64.self, at: 2) > 0)
        #expect(try progress.decode(String.self, at: 3).split(separator: ",").count == ProjectionCatalog.names.count)
        await fixture.close()
    }
}

/// A rebuild writes rows without their fold state; reads and the next event fold it again from the row's stream.
@Suite struct RebuiltRowsTests {
    /// A rebuild's rows are frozen as they are copied in: every page of every swapped-in table is all-visible, so an
    /// index-only scan (the invoices' count of paying users) reads no heap and no autovacuum rewrites the tables.
    @Test func aRebuiltTableIsAllVisibleAtOnce() async throws {
        let fixture = try await StoreFixture.make()
        let recorder = EventRecorder(store: fixture.store)
        let appends = ProjectionRuntimeTests.history(users: 300).map {
            (LedgerStreams.purchase(originalTransactionID: $0.originalTransactionIDs[0]), $0, $0.idempotencyKey)
        }
        _ = try await recorder.record(
            app: "app", appends, occurredAt: { _ in ProjectionRuntimeTests.start },
            metadata: EventMetadata(source: "test"))
        try await TestDatabase.waitForHorizon(fixture.connectionString)
        try await ProjectionReplay.rebuild(pool: fixture.store.pool)
        for table in ["subscriptions", "purchases", "paying_purchases", "paying_users"] {
            let row = try #require(
                try await fixture.superuser.query(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT relpages, relallvisible, (SELECT count(*) FROM ledger.\(table))
                            FROM pg_class WHERE oid = 'ledger.\(table)'::regclass
                            """)
                ).first)
            let (pages, allVisible, rows) = (try row.decode(Int32.self, at: 0), try row.decode(Int32.self, at: 1), try row.decode(Int64.self, at: 2))
            #expect(pages > 0 && allVisible == pages, "\(table): \(allVisible) of \(pages) pages all-visible, \(rows) rows")
        }
        await fixture.close()
    }

    @Test func rowsWithoutFoldStateAreReadAndExtendedFromTheLog() async throws {
        let fixture = try await StoreFixture.make()
        let recorder = EventRecorder(store: fixture.store)
        let history = ProjectionRuntimeTests.history(users: 2)
        func record(_ events: [LedgerEvent]) async throws {
            let appends = events.map { (LedgerStreams.purchase(originalTransactionID: $0.originalTransactionIDs[0]), $0, $0.idempotencyKey) }
            _ = try await recorder.record(
                app: "app", appends, occurredAt: { _ in ProjectionRuntimeTests.start },
                metadata: EventMetadata(source: "test"))
        }
        try await record(Array(history.prefix(3)))
        // Below the server-wide commit horizon (another test's open transaction may hold it back), so the rebuild's
        // cut includes them.
        try await TestDatabase.waitForHorizon(fixture.connectionString)
        try await ProjectionReplay.rebuild(pool: fixture.store.pool)
        let unfolded = try await fixture.superuser.query("SELECT count(*) FROM ledger.subscriptions WHERE fold_state IS NULL")
        #expect(try unfolded.first?.decode(Int64.self, at: 0) == 1)

        // A read answers from the typed columns alone: what the fold of the row's stream says.
        func pureFold() async throws -> SubscriptionStatus? {
            let events = try await fixture.store.pool.withConnection { try ProjectionReplay.events(app: "app", asOf: nil, on: $0) }
            return foldAll(SubscriptionStatusReducer.self, events: events, asOf: nil)["o0"]
        }
        let read = try await UserQueries(pool: fixture.store.pool).summaries(app: "app", owners: ["user-0"])
        #expect(read.subscriptions == [try #require(try await pureFold()).summary])

        // The next event folds onto the state folded from the log, and stores it.
        try await record(Array(history.dropFirst(3)))
        try await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
        let stored = try await fixture.superuser.query("SELECT fold_state::text FROM ledger.subscriptions WHERE original_transaction_id = 'o0'")
        let state = try StateCodec.decode(SubscriptionStatus.self, from: try #require(try stored.first?.decode(String?.self, at: 0)))
        #expect(state == (try await pureFold()))
        #expect(state.state == .expired(.voluntary))
        #expect(try await ProjectionReplay.check(pool: fixture.store.pool).isEmpty)
        await fixture.close()
    }
}
