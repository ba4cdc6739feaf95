import Foundation
import LedgerDomain
import LedgerStore
import PostgresClient
import Testing

/// The projection runtime against a real PostgreSQL: live tables equal a pure fold of the log, concurrent workers
/// apply each event once, and `replay --check` finds a row that no longer matches the log.
@Suite struct ProjectionRuntimeTests {
    static let start = Instant(microsecondsSinceEpoch: 1_767_225_600_000_000) // 2026-01-01T00:00:00Z
    static func day(_ n: Int64) -> Instant { Instant(microsecondsSinceEpoch: start.microsecondsSinceEpoch + n * 86_400_000_000) }

    /// A subscription started, renewed twice, then expired; plus a consumable; for `users` users.
    static func history(users: Int) -> [LedgerEvent] {
        (0..<users).flatMap { user -> [LedgerEvent] in
            func facts(_ n: Int64) -> TransactionFacts {
                TransactionFacts(appUserID: "user-\(user)", productID: "monthly", transactionID: "t\(user)-\(n)",
                                 originalTransactionID: "o\(user)", subscriptionGroupID: "g1", purchaseDate: day(n * 30),
                                 expiresDate: day(n * 30 + 30), signedDate: day(n * 30), price: Money(milliunits: 9_990, currency: "USD"))
            }
            let reference = SubscriptionRef(appUserID: "user-\(user)", productID: "monthly", originalTransactionID: "o\(user)",
                                            subscriptionGroupID: "g1", signedDate: day(95))
            return [
                .subscriptionStarted(SubscriptionStarted(transaction: facts(0), isResubscribe: false)),
                .subscriptionRenewed(Renewal(transaction: facts(1))),
                .subscriptionRenewed(Renewal(transaction: facts(2))),
                .subscriptionExpired(Expiry(subscription: reference, reason: .voluntary, expiresDate: day(90))),
                .purchaseConsumable(Purchase(transaction: TransactionFacts(
                    appUserID: "user-\(user)", productID: "coins", transactionID: "c\(user)", originalTransactionID: "c\(user)",
                    purchaseDate: day(3), signedDate: day(3), developerPayload: "level \(user)"))),
            ]
        }
    }

    static func append(_ events: [LedgerEvent], app: String, to store: EventStore) async throws {
        for event in events {
            let encoded = event.encoded()
            _ = try await store.append(app: app, stream: "sub-\(event.idempotencyKey.hashValue % 7)", events: [
                NewEvent(type: encoded.type, schemaVersion: encoded.schemaVersion, payload: encoded.payload,
                         idempotencyKey: event.idempotencyKey, occurredAt: LedgerClock.system.now()),
            ])
        }
    }

    static func liveStates(_ projection: String, pool: PostgresPool) async throws -> [String: String] {
        let rows = try await pool.query("""
            SELECT app_id || '/' || key, state::text FROM ledger.projection_state WHERE projection = \(projection)
            """)
        return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) })
    }

    @Test func liveStatesEqualAPureFoldOfTheLog() async throws {
        let fixture = try await StoreFixture.make()
        try await Self.append(Self.history(users: 5), app: "app", to: fixture.store)
        _ = try await fixture.store.append(app: "app", stream: "other", events: [event("not-a-domain-event")]) // skipped
        let worker = ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners())
        let applied = try await worker.catchUpThroughNow()
        #expect(applied == 5 * 3 * 5 + 3) // every event read once per projection (3 projections)

        let events = try await fixture.store.pool.withConnection { try ProjectionReplay.events(app: "app", asOf: nil, on: $0) }
        let expected = foldAll(SubscriptionStatusReducer.self, events: events, asOf: nil)
        let live = try await Self.liveStates(SubscriptionStatusReducer.name, pool: fixture.superuser)
        #expect(live.count == expected.count)
        for (key, state) in expected {
            let stored = try #require(live["app/" + key])
            #expect(try StateCodec.decode(SubscriptionStatus.self, from: stored) == state)
        }
        #expect(try await worker.catchUp() == 0) // nothing applied twice
        await fixture.close()
    }

    /// A failure after the states are written but before the checkpoint (injected by a trigger, standing in for a
    /// crash) leaves neither states nor checkpoint behind; the next run starts from the old checkpoint.
    @Test func aBatchThatFailsMidwayLeavesNothingBehind() async throws {
        let fixture = try await StoreFixture.make()
        try await Self.append(Self.history(users: 3), app: "app", to: fixture.store)
        try await fixture.superuser.withConnection { connection in
            try connection.execute("""
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
        await #expect(throws: PostgresError.self) { try await worker.catchUp() }
        let leftovers = try await fixture.superuser.query("""
            SELECT (SELECT count(*) FROM ledger.projection_state) + (SELECT count(*) FROM ledger.projection_checkpoints)
            """).first?.decode(Int64.self, at: 0)
        #expect(leftovers == 0)

        try await fixture.superuser.query("UPDATE public.crash_switch SET armed = false")
        try await worker.catchUpThroughNow()
        let clean = try await ProjectionReplay.check(ProjectionCatalog.runners(), scratchRunners: ProjectionCatalog.runners(table: .scratch),
                                                     pool: fixture.store.pool)
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
        for name in ProjectionCatalog.names {
            let concurrent = try await Self.liveStates(name, pool: fixture.superuser)
            let sequential = try await Self.liveStates(name, pool: single.superuser)
            #expect(concurrent == sequential, "projection \(name)")
        }
        await fixture.close()
        await single.close()
    }

    @Test func checkFindsALiveRowThatNoLongerMatchesTheLog() async throws {
        let fixture = try await StoreFixture.make()
        try await Self.append(Self.history(users: 3), app: "app", to: fixture.store)
        let runners = ProjectionCatalog.runners()
        try await ProjectionWorker(pool: fixture.store.pool, runners: runners).catchUpThroughNow()
        let clean = try await ProjectionReplay.check(runners, scratchRunners: ProjectionCatalog.runners(table: .scratch), pool: fixture.store.pool)
        #expect(clean.isEmpty)

        try await fixture.superuser.query("""
            UPDATE ledger.projection_state SET state = jsonb_set(state, '{productID}', '"tampered"')
            WHERE projection = 'subscription_status' AND key = 'o1'
            """)
        try await fixture.superuser.query("DELETE FROM ledger.projection_state WHERE projection = 'purchases' AND key = 'c2'")
        let differences = try await ProjectionReplay.check(runners, scratchRunners: ProjectionCatalog.runners(table: .scratch),
            pool: fixture.store.pool)
        #expect(Set(differences.map { "\($0.projection)/\($0.key)" }) == ["subscription_status/o1", "purchases/c2"])
        #expect(differences.first { $0.key == "c2" }?.live == nil)

        // A rebuild repairs the live table.
        _ = try await ProjectionReplay.rebuild(runners[0], pool: fixture.store.pool)
        _ = try await ProjectionReplay.rebuild(runners[1], pool: fixture.store.pool)
        #expect(try await ProjectionReplay.check(runners, scratchRunners: ProjectionCatalog.runners(table: .scratch),
            pool: fixture.store.pool).isEmpty)
        await fixture.close()
    }
}
