import Foundation
import LedgerDomain
import LedgerRecording
import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import PostgresTestSupport
import Synchronization
import Testing
import UTCTime

/// The rebuild (`ledger replay`: fold-and-COPY into `ledger_rebuild`, then a swap) against the live workers, on a
/// real PostgreSQL: random histories of every event type, written the ways the ledger writes them (recorder bursts,
/// restores, consumes, identity events split per transaction, stray events in foreign streams) with late commits
/// (a transaction with a lower id committing after a later one), projected in random batch sizes. The rebuilt
/// tables must hold exactly the rows the live workers wrote, and a rebuild started while writes go on must lose
/// nothing.
///
/// These tests keep transactions open on purpose, so their databases live on a server of their own (`.lateCommits`):
/// an open transaction holds back the server-wide commit horizon that every other test's projections wait for. For
/// the same reason they run one at a time: side by side, each waited at every catch-up for the others' open
/// transactions, and under the whole suite on two cores those waits chained past the 60 s catch-up bound (four of the
/// six random histories failed in one CI run).
@Suite(.serialized) struct ReadModelRebuildTests {
    typealias SeededGenerator = RandomHistoryTests.SeededGenerator

    static let apps = ["app-a", "app-b"]
    static let tables = ["subscriptions", "purchases", "paying_purchases", "paying_users"]

    /// A fresh migrated database on the `.lateCommits` server: the service's store and a superuser pool.
    static func fixture(prefix: String) async throws -> StoreFixture {
        try await StoreFixture.make(prefix: prefix, on: .lateCommits)
    }

    /// Every row of every read model table as JSON without its fold state (see `foldStates`), table by table, in a
    /// fixed order.
    static func rows(pool: PostgresPool) async throws -> [String: [String]] {
        var rows: [String: [String]] = [:]
        for table in tables {
            rows[table] = try await pool.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT (to_jsonb(t) - 'fold_state')::text FROM ledger.\(table) t ORDER BY 1
                        """)
            )
            .map { try $0.decode(String.self, at: 0) }
        }
        return rows
    }

    // MARK: - a. random histories with late commits

    @Test(arguments: [11, 12, 13, 14, 15, 16] as [UInt64])
    func randomHistoryWithLateCommitsRebuildsToTheLiveRows(seed: UInt64) async throws {
        var random = SeededGenerator(state: seed)
        let fixture = try await Self.fixture(prefix: "rebuild_random")
        var plan: [HistoryWrite] = []
        for app in Self.apps {
            var builder = HistoryBuilder(app: app, random: SeededGenerator(state: seed &* 31 &+ UInt64(app.utf8.count)))
            builder.build()
            plan += builder.writes
        }
        // The generator covers every case of LedgerEvent (a new case fails to compile in `caseIndex` until it is added).
        let planned = Set(plan.compactMap(\.event).map(caseIndex))
        #expect(planned == Set(0..<caseCount), "seed \(seed): cases never generated: \(Set(0..<caseCount).subtracting(planned).sorted())")

        // Delivery: every write 1–2 times, shuffled (a consume or a restore may come before its purchase); two thirds
        // before a rebuild, the rest after it, onto the rows it wrote.
        var deliveries = plan.flatMap { write in Array(repeating: write, count: Int.random(in: 1...2, using: &random)) }
        deliveries.shuffle(using: &random)
        var before = Array(deliveries.prefix(deliveries.count * 2 / 3))
        var after = Array(deliveries.dropFirst(before.count))
        var counts = DeliveryCounts()
        try await Self.deliver(&before, to: fixture, using: &random, counts: &counts, seed: seed)
        try await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
        try await Self.expectLiveEqualsTheLog(fixture, seed: seed, "before the rebuild")

        // The rebuild writes the rows the live workers wrote. It leaves fold states out, but for keys that events
        // outside their own streams touched (they cannot be folded again from their stream alone).
        let live = try await Self.rows(pool: fixture.superuser)
        for table in Self.tables { #expect(live[table]?.isEmpty == false, "seed \(seed): \(table) is empty") }
        let liveStates = try await Self.foldStates(pool: fixture.superuser)
        try await ProjectionReplay.rebuild(pool: fixture.store.pool)
        let rebuilt = try await Self.rows(pool: fixture.superuser)
        for table in Self.tables {
            #expect(rebuilt[table] == live[table], "seed \(seed): \(table) rebuilt differs from live")
        }
        let rebuiltStates = try await Self.foldStates(pool: fixture.superuser)
        #expect(rebuiltStates.values.contains(nil), "seed \(seed): the rebuild wrote every fold state")
        for (key, state) in rebuiltStates {
            guard let state else { continue }
            #expect(state == liveStates[key] ?? nil, "seed \(seed): \(key)")
        }
        // The rebuilt tables carry the live tables' indexes and grants: the service keeps reading and writing them.
        let indexes = try await fixture.superuser.query(
            """
            SELECT count(*) FROM pg_indexes WHERE schemaname = 'ledger'
              AND indexname IN ('subscriptions_pkey', 'subscriptions_owner', 'purchases_pkey', 'purchases_owner',
                                'paying_purchases_pkey', 'paying_users_pkey', 'paying_users_user')
            """
        ).first?.decode(Int64.self, at: 0)
        #expect(indexes == 7)
        #expect(
            try await fixture.superuser.query("SELECT count(*) FROM pg_namespace WHERE nspname = 'ledger_rebuild'")
                .first?.decode(Int64.self, at: 0) == 0)

        // The rest of the history, folded onto the rebuilt rows (their states folded again from the log).
        try await Self.deliver(&after, to: fixture, using: &random, counts: &counts, seed: seed)
        try await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
        try await Self.expectLiveEqualsTheLog(fixture, seed: seed, "after the rebuild")
        try await Self.expectFoldsFromTheLogAgree(fixture, seed: seed)
        #expect(counts.lateCommits > 0, "seed \(seed): no late commit happened")

        // Everything planned reached the log: every event type, and stray events outside their keys' own streams.
        let types = Set(try await fixture.superuser.query("SELECT DISTINCT event_type FROM ledger.events").map { try $0.decode(String.self, at: 0) })
        #expect(types == Set(plan.compactMap(\.event).map { $0.encoded().type }), "seed \(seed)")
        let strays =
            try await fixture.superuser.query(
                """
                SELECT count(*) FROM ledger.events
                WHERE stream_id LIKE 'legacy:%' OR stream_id LIKE 'otx:foreign-%'
                   OR jsonb_array_length(coalesce(payload -> 'originalTransactionIDs', '[]'::jsonb)) > 1
                   OR stream_id <> 'otx:' || (payload #>> '{transaction,originalTransactionID}')
                """
            ).first?.decode(Int64.self, at: 0) ?? 0
        #expect(strays > 0, "seed \(seed): no stray event in a foreign stream")
        await fixture.close()
    }

    struct DeliveryCounts {
        var lateCommits = 0
        var checksMidway = 0
        var rebuildsMidway = 0
    }

    /// Makes the writes in random steps: bursts through the recorder (restores and consumes on their own), late
    /// commits, projection batches of random sizes, and now and then a check (which must find nothing) or a rebuild.
    static func deliver(
        _ pending: inout [HistoryWrite], to fixture: StoreFixture, using random: inout SeededGenerator,
        counts: inout DeliveryCounts, seed: UInt64
    ) async throws {
        let writer = HistoryWriter(store: fixture.store)
        while !pending.isEmpty {
            switch Int.random(in: 0...11, using: &random) {
            case 0...5:
                let burst = Array(pending.prefix(Int.random(in: 1...6, using: &random)))
                pending.removeFirst(burst.count)
                try await writer.write(burst)
            case 6...8:
                // Two transactions: the first appends and stays open while the second appends and commits, so the
                // first (lower transaction id, lower positions) commits last. Projections and, sometimes, a check or
                // a rebuild run in between.
                let first = Array(pending.prefix(Int.random(in: 1...4, using: &random)))
                pending.removeFirst(first.count)
                let late = try writer.beginLate(first)
                let window = Array(pending.prefix(Int.random(in: 1...4, using: &random)))
                pending.removeFirst(window.count)
                let second = window.filter { late.allows($0) }
                pending.insert(contentsOf: window.filter { !late.allows($0) }, at: 0)
                try await writer.write(second)
                // The first appends again, after the second committed: its events now lie on both sides of the
                // second's positions, often in the same streams (so a key's events are applied out of position order).
                let third = Array(pending.prefix(Int.random(in: 0...3, using: &random)))
                pending.removeFirst(third.count)
                try late.append(third)
                pending.insert(contentsOf: third.filter { $0.event == nil }, at: 0)
                try await Self.project(fixture, using: &random)
                if counts.checksMidway < 2, Bool.random(using: &random) {
                    counts.checksMidway += 1
                    let differences = try await ProjectionReplay.check(pool: fixture.store.pool)
                    #expect(differences.isEmpty, "seed \(seed), a transaction open: \(differences)")
                } else if counts.rebuildsMidway < 2, Int.random(in: 0...2, using: &random) == 0 {
                    counts.rebuildsMidway += 1
                    try await ProjectionReplay.rebuild(pool: fixture.store.pool)
                }
                try late.commit()
                counts.lateCommits += 1
            case 9...10:
                try await Self.project(fixture, using: &random)
            default:
                if counts.rebuildsMidway < 3, Int.random(in: 0...2, using: &random) == 0 {
                    counts.rebuildsMidway += 1
                    try await ProjectionReplay.rebuild(pool: fixture.store.pool)
                }
            }
        }
    }

    /// Every fold state stored, by `table|app|key` (nil: left out by a rebuild).
    static func foldStates(pool: PostgresPool) async throws -> [String: String?] {
        var states: [String: String?] = [:]
        for table in ["subscriptions", "purchases"] {
            for row in try await pool.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT '\(table)|' || app_id || '|' || original_transaction_id, fold_state::text FROM ledger.\(table)
                        """))
            {
                states[try row.decode(String.self, at: 0)] = try row.decode(String?.self, at: 1)
            }
        }
        return states
    }

    /// Live equals the log two ways: `check` finds no row differing from a rebuild, and every state equals the
    /// reducers' fold of the app's whole log.
    static func expectLiveEqualsTheLog(_ fixture: StoreFixture, seed: UInt64, _ when: String) async throws {
        let differences = try await ProjectionReplay.check(pool: fixture.store.pool)
        #expect(differences.isEmpty, "seed \(seed), \(when): \(differences)")
        try await expectLiveEqualsAPureFold(fixture, seed: seed, when)
    }

    /// `foldFromLog` of every subscription key, with the events about it outside its stream, equals the reducer's
    /// fold of those events in log order, whether it reads the log in pages of two events or all at once.
    static func expectFoldsFromTheLogAgree(_ fixture: StoreFixture, seed: UInt64) async throws {
        try await fixture.superuser.withConnection { connection in
            let streams = Dictionary(
                uniqueKeysWithValues: try connection.query("SELECT position, stream_id FROM ledger.events").map {
                    (try $0.decode(Int64.self, at: 0), try $0.decode(String.self, at: 1))
                })
            var expected: [StateKey: (state: SubscriptionStatus, position: Int64)] = [:]
            var outside: [StateKey: [Int64]] = [:]
            for app in try connection.query("SELECT DISTINCT app_id FROM ledger.events").map({ try $0.decode(String.self, at: 0) }) {
                for event in try ProjectionReplay.events(app: app, asOf: nil, on: connection) {
                    for key in Set(SubscriptionStatusReducer.keys(for: event)) {
                        let stateKey = StateKey(appID: app, key: key)
                        if streams[event.position] != SubscriptionsReadModel.ownStream(of: key) {
                            outside[stateKey, default: []].append(event.position)
                        }
                        let state = expected[stateKey]?.state ?? SubscriptionStatusReducer.initial(key: key)
                        expected[stateKey] = (SubscriptionStatusReducer.apply(state, event), event.position)
                    }
                }
            }
            #expect(!outside.isEmpty, "seed \(seed): no key with events outside its stream")
            for pageSize in [2, 5_000] {
                let folded = try SubscriptionsReadModel.foldFromLog(
                    Array(expected.keys), outside: outside, through: nil, pageSize: pageSize,
                    on: connection)
                #expect(folded.mapValues(\.state) == expected.mapValues(\.state), "seed \(seed), pages of \(pageSize)")
                #expect(folded.mapValues(\.position) == expected.mapValues(\.position), "seed \(seed), pages of \(pageSize)")
            }
        }
    }

    /// The late commit at its sharpest: a transaction appends (position p1), another appends to a second purchase and
    /// commits (p2), then the first appends to that second purchase too (p3 > p2) and commits. The live worker applies
    /// the first transaction, then the second, in separate batches: the second purchase gets p3, then p2. Its row must
    /// keep what a fold of its stream keeps (the greatest position, p3), and every state must equal the rebuild's.
    @Test func aKeyAppliedOutOfPositionOrderEqualsItsRebuild() async throws {
        let fixture = try await Self.fixture(prefix: "rebuild_order")
        let writer = HistoryWriter(store: fixture.store)
        func purchase(_ id: String, user: String) -> HistoryWrite {
            .append(
                app: "app-a", stream: "otx:\(id)",
                event: .purchaseNonConsumable(
                    Purchase(
                        transaction: TransactionFacts(
                            appUserID: user, productID: "lifetime", transactionID: id, originalTransactionID: id, purchaseDate: onDay(1),
                            signedDate: onDay(1)))))
        }
        let reference = SubscriptionRef(productID: "lifetime", originalTransactionID: "z2", signedDate: onDay(3))
        let late = try writer.beginLate([purchase("z1", user: "u1")])
        #expect(try await writer.write([purchase("z2", user: "u2")]) == 1)
        try late.append([
            .append(
                app: "app-a", stream: "otx:z2",
                event: .refunded(
                    Refund(
                        subscription: reference, transactionID: "z2",
                        refundDate: onDay(3)))),
            .append(
                app: "app-a", stream: "otx:z2",
                event: .transferred(
                    Transfer(
                        fromUserID: "u2", toUserID: "u3",
                        originalTransactionIDs: ["z2"], transferredAt: onDay(4), policy: .transfer)))
        ])
        try late.commit()
        // otx:z2 in stream order: the second's purchase, then the first's two events, of a lower transaction id.
        let rows = try await fixture.superuser.query(
            """
            SELECT position, transaction_id FROM ledger.events WHERE stream_id = 'otx:z2' ORDER BY stream_version
            """
        ).map { (try $0.decode(Int64.self, at: 0), try $0.decode(UInt64.self, at: 1)) }
        try #require(rows.count == 3)
        #expect(rows[1].1 == rows[2].1 && rows[1].1 < rows[0].1 && rows[1].0 > rows[0].0, "\(rows)")
        let positions = rows.map(\.0)

        // One event per batch (each batch completes its transaction): the first transaction, then the second.
        try await TestDatabase.waitForHorizon(fixture.connectionString)
        let runners = ProjectionCatalog.runners(batchSize: 1)
        _ = try await fixture.store.pool.withConnection { connection in
            for runner in runners { while try runner.runBatch(on: connection) > 0 {} }
        }
        let stored = try await fixture.superuser.query(
            """
            SELECT last_position FROM ledger.purchases WHERE original_transaction_id = 'z2'
            UNION ALL SELECT last_position FROM ledger.paying_purchases WHERE original_transaction_id = 'z2'
            """
        ).map { try $0.decode(Int64.self, at: 0) }
        #expect(stored == [positions.max()!, positions.max()!])
        let owner = try await fixture.superuser.query("SELECT owner_app_user_id FROM ledger.purchases WHERE original_transaction_id = 'z2'")
            .first?.decode(String?.self, at: 0)
        #expect(owner == "u3")
        let differences = try await ProjectionReplay.check(pool: fixture.store.pool)
        #expect(differences.isEmpty, "\(differences)")
        await fixture.close()
    }

    /// A subscription renewed in twelve legacy streams, each behind a thousand events of no read model's: the pass
    /// cuts the log into chunks of whole streams of about a thousand events, so the renewals reach different workers,
    /// and each worker finds only its own. The rebuild must fold the key from all of them, however they were split.
    /// (Whether a wrong join shows here depends on which worker ends last; the next test holds the join itself.)
    @Test func aKeyWhoseStrayEventsReachSeveralWorkersRebuildsFromAllOfThem() async throws {
        let fixture = try await Self.fixture(prefix: "rebuild_split")
        try await Self.renew(fixture, inLegacyStreams: 12, behind: 1_000)
        try await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
        let live = try await Self.rows(pool: fixture.superuser)
        let expires = try await fixture.superuser.query(
            "SELECT expires_at = \(onDay(43)) FROM ledger.subscriptions WHERE original_transaction_id = 'w0'")
        #expect(try expires.first?.decode(Bool.self, at: 0) == true, "the live row is not the last renewal's")

        try await ProjectionReplay.rebuild(pool: fixture.store.pool)
        #expect(try await Self.rows(pool: fixture.superuser) == live)
        await fixture.close()
    }

    /// The second look joins what the workers found of one key before folding it: the part that comes last lacks the
    /// last renewal, and folded alone it would write an older state over the whole one.
    @Test func strayEventsFoundByTwoWorkersAreFoldedTogether() async throws {
        let fixture = try await Self.fixture(prefix: "rebuild_strays")
        try await Self.renew(fixture, inLegacyStreams: 4, behind: 0)
        try await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
        let live = try await Self.rows(pool: fixture.superuser)
        let positions = try await fixture.superuser.query("SELECT position FROM ledger.events WHERE stream_id LIKE 'legacy:%' ORDER BY position")
            .map { try $0.decode(Int64.self, at: 0) }
        try #require(positions.count == 4)
        let key = StateKey(appID: "app-a", key: "w0")
        let parts: [any StrayFold] = [
            Strays<SubscriptionsReadModel>(positions: [key: [positions[1], positions[3]]]),
            Strays<SubscriptionsReadModel>(positions: [key: [positions[0], positions[2]]])
        ]
        let cut = try await fixture.superuser.query("SELECT pg_snapshot_xmin(pg_current_snapshot())").first?.decode(UInt64.self, at: 0) ?? 0
        try await fixture.store.pool.withConnection { try StrayFolds.finish(parts, cut: cut, schema: "ledger", on: $0) }
        #expect(try await Self.rows(pool: fixture.superuser) == live)
        await fixture.close()
    }

    /// Subscription `w0` of app-a started in its own stream, then renewed once in each of `streams` legacy streams (in
    /// order, the last expiring on day 31 + streams), each renewal behind `filler` events no read model folds.
    static func renew(_ fixture: StoreFixture, inLegacyStreams streams: Int, behind filler: Int) async throws {
        let writer = HistoryWriter(store: fixture.store)
        func facts(_ transaction: String, day: Int) -> TransactionFacts {
            TransactionFacts(
                appUserID: "u1", productID: "monthly", transactionID: transaction, originalTransactionID: "w0", subscriptionGroupID: "g1",
                purchaseDate: onDay(day), originalPurchaseDate: onDay(1), expiresDate: onDay(day + 30), signedDate: onDay(day))
        }
        _ = try await writer.write([
            .append(app: "app-a", stream: "otx:w0", event: .subscriptionStarted(SubscriptionStarted(transaction: facts("w0", day: 1))))
        ])
        for index in 0..<streams {
            for batch in stride(from: 0, to: filler, by: 500) {
                let events = (batch..<min(filler, batch + 500)).map { n in
                    NewEvent(type: "test.filler", payload: "{}", idempotencyKey: "filler-\(index)-\(n)", occurredAt: onDay(1))
                }
                _ = try await fixture.store.append(app: "app-a", stream: "legacy:\(index)", events: events)
            }
            _ = try await writer.write([
                .append(
                    app: "app-a", stream: "legacy:\(index)", event: .subscriptionRenewed(Renewal(transaction: facts("w0-r\(index)", day: 2 + index))))
            ])
        }
    }

    /// A few batches of every projection, each with its own random batch size.
    static func project(_ fixture: StoreFixture, using random: inout SeededGenerator) async throws {
        var chosen: [any ProjectionRunning] = []
        for name in ProjectionCatalog.names {
            chosen += ProjectionCatalog.runners([name], batchSize: Int.random(in: 1...25, using: &random))
        }
        let runners = chosen
        let rounds = Int.random(in: 0...3, using: &random)
        _ = try await fixture.store.pool.withConnection { connection in
            for _ in 0..<rounds { for runner in runners { _ = try runner.runBatch(on: connection) } }
        }
    }

    /// The live rows equal the reducers' fold of each app's whole log (so live and rebuild cannot agree on a wrong
    /// answer): subscriptions' and purchases' states (a row without its fold state folded from its stream, as reads
    /// do), and who counts in which month.
    static func expectLiveEqualsAPureFold(_ fixture: StoreFixture, seed: UInt64, _ when: String) async throws {
        for app in apps {
            let events = try await fixture.store.pool.withConnection { try ProjectionReplay.events(app: app, asOf: nil, on: $0) }
            let subscriptions = foldAll(SubscriptionStatusReducer.self, events: events, asOf: nil)
            let storedSubscriptions = try await storedStates(SubscriptionsReadModel.self, app: app, fixture: fixture)
            #expect(storedSubscriptions == subscriptions, "seed \(seed) \(app) \(when): subscriptions")

            let purchases = foldAll(PurchaseRecordReducer.self, events: events, asOf: nil)
            let storedPurchases = try await storedStates(PurchasesReadModel.self, app: app, fixture: fixture)
            #expect(storedPurchases == purchases, "seed \(seed) \(app) \(when): purchases")

            let paying = foldAll(PayingUsersReducer.self, events: events, asOf: nil)
            let expected = Set(
                paying.values.flatMap { purchase in
                    purchase.months.keys.compactMap { month in
                        purchase.payingUser(in: month).map { "\(month)|\(purchase.originalTransactionID)|\($0)" }
                    }
                })
            let stored = Set(
                try await fixture.superuser.query(
                    """
                    SELECT month || '|' || original_transaction_id || '|' || app_user_id FROM ledger.paying_users WHERE app_id = \(app)
                    """
                ).map { try $0.decode(String.self, at: 0) })
            #expect(stored == expected, "seed \(seed) \(app) \(when): paying users")
            let owners = Set(
                try await fixture.superuser.query(
                    """
                    SELECT original_transaction_id || '|' || coalesce(owner_app_user_id, '-') FROM ledger.paying_purchases WHERE app_id = \(app)
                    """
                ).map { try $0.decode(String.self, at: 0) })
            #expect(owners == Set(paying.values.map { "\($0.originalTransactionID)|\($0.owner?.appUserID ?? "-")" }), "seed \(seed) \(app) \(when)")
        }
    }

    /// The states of one read model's rows of `app`: the stored fold state, or for a row a rebuild wrote without it,
    /// the state folded from its stream.
    static func storedStates<Model: ReadModel>(_ model: Model.Type, app: String, fixture: StoreFixture) async throws
        -> [String: Model.Reducer.State]
    {
        try await fixture.superuser.withConnection { connection in
            var states: [String: Model.Reducer.State] = [:]
            var unfolded: [StateKey] = []
            for row in try connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT original_transaction_id, fold_state::text FROM ledger.\(Model.tables[0].name) WHERE app_id = $1
                        """, bindings: [app.postgresValue]))
            {
                let key = try row.decode(String.self, at: 0)
                if let text = try row.decode(String?.self, at: 1) {
                    states[key] = try StateCodec.decode(Model.Reducer.State.self, from: text)
                } else {
                    unfolded.append(StateKey(appID: app, key: key))
                }
            }
            for (key, state) in try Model.foldFromLog(unfolded, through: nil, on: connection) { states[key.key] = state.state }
            return states
        }
    }

    // MARK: - b. a rebuild while writes go on

    @Test func aRebuildWhileWritesGoOnLosesNothing() async throws {
        let fixture = try await Self.fixture(prefix: "rebuild_live")
        // A backlog the fold reports progress on (every 10,000 events), so the test can hold the fold midway.
        let backlog = 25_000
        try await SyntheticPayingUsers.insert(on: fixture.superuser, app: "app-a", prefix: "bulk-", users: backlog, day: onDay(3))
        // Below the server-wide commit horizon (another test's open transaction may hold it back), so every rebuild's
        // cut includes the backlog.
        try await TestDatabase.waitForHorizon(fixture.connectionString)
        try await ProjectionReplay.rebuild(pool: fixture.store.pool)

        let recorder = EventRecorder(store: fixture.store)
        let written = Locked<[String]>([])
        let stop = Locked(false)
        // The writer: a new subscription per round, a renewal of the previous one, and a link of both to one user
        // (split per transaction, as the ledger writes it).
        let writer = Task {
            var round = 0
            while !stop.value {
                let id = "live-\(round)"
                let started = SubscriptionStarted(transaction: subscriptionFacts(id, renewal: 0, user: "w\(round % 7)"))
                var events: [LedgerEvent] = [.subscriptionStarted(started)]
                if round > 0 {
                    events.append(.subscriptionRenewed(Renewal(transaction: subscriptionFacts("live-\(round - 1)", renewal: 1, user: nil))))
                    events.append(
                        .linked(
                            TransactionLink(
                                appUserID: "w\(round % 5)", originalTransactionIDs: [id, "live-\(round - 1)"],
                                linkedAt: onDay(10 + round % 50), source: .restore)))
                }
                let appends = events.flatMap(\.perOriginalTransaction).map {
                    (
                        stream: LedgerStreams.purchase(originalTransactionID: $0.originalTransactionIDs[0]), event: $0,
                        idempotencyKey: $0.idempotencyKey
                    )
                }
                _ = try await recorder.record(app: "app-a", appends, occurredAt: { _ in onDay(0) }, metadata: EventMetadata(source: "test"))
                written.update { $0.append(id) }
                round += 1
            }
        }
        // The live worker, as `serve` runs it, with small batches.
        let worker = ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners(batchSize: 50))
        let running = Task { await worker.run(pollInterval: .milliseconds(20)) }

        // A transaction that started before the rebuild and commits while it folds: below the rebuild's cut it is
        // not, so the live worker must apply it after the swap.
        let late = try PostgresConnection.connect(fixture.store.pool.configuration)
        try late.execute("BEGIN")
        let lateEvent = LedgerEvent.subscriptionStarted(SubscriptionStarted(transaction: subscriptionFacts("late-1", renewal: 0, user: "late-user")))
        let encoded = lateEvent.encoded()
        _ = try EventStore.append(
            on: late, app: "app-a", stream: "otx:late-1", expected: .any,
            events: [
                NewEvent(
                    type: encoded.type, schemaVersion: encoded.schemaVersion, payload: encoded.payload, idempotencyKey: lateEvent.idempotencyKey,
                    occurredAt: onDay(0))
            ])

        // The fold waits at its first progress report until the writer has written 30 more rounds and the late
        // transaction has committed: writes are certain to happen during the fold, whatever the timing.
        let folding = Locked(false)
        let lateCommitted = Locked(false)
        let writtenBeforeFold = Locked<Int?>(nil)
        let gateTimedOut = Locked(false)
        let rebuild = Task {
            try await ProjectionReplay.rebuild(pool: fixture.store.pool) { _ in
                guard
                    !folding.update({ folding in
                        defer { folding = true }; return folding
                    })
                else { return }
                let before = written.value.count
                writtenBeforeFold.update { $0 = before }
                let deadline = ContinuousClock.now + .seconds(60)
                while written.value.count < before + 30 || !lateCommitted.value {
                    guard ContinuousClock.now < deadline else {
                        gateTimedOut.update { $0 = true }
                        return
                    }
                    Thread.sleep(forTimeInterval: 0.002)
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while !folding.value, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(folding.value, "the rebuild never reported progress")
        try late.execute("COMMIT")
        lateCommitted.update { $0 = true }
        let folded = try await rebuild.value
        let writtenAfterRebuild = written.value.count
        #expect(!gateTimedOut.value, "the writer did not get 30 rounds in during the fold")
        #expect(folded >= backlog)

        stop.update { $0 = true }
        try await writer.value
        try await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
        running.cancel()
        await running.value

        let ids = written.value + ["late-1"]
        #expect(writtenAfterRebuild >= (writtenBeforeFold.value ?? 0) + 30)
        let present = Set(
            try await fixture.superuser.query(
                """
                SELECT original_transaction_id FROM ledger.subscriptions WHERE app_id = 'app-a' AND status IS NOT NULL
                  AND original_transaction_id = ANY(\(TextArray(ids)))
                """
            ).map { try $0.decode(String.self, at: 0) })
        #expect(present == Set(ids), "missing after the rebuild: \(Set(ids).subtracting(present).sorted().prefix(20))")
        let total = try await fixture.superuser.query("SELECT count(*) FROM ledger.subscriptions WHERE app_id = 'app-a'")
            .first?.decode(Int64.self, at: 0)
        #expect(total == Int64(backlog + ids.count))
        // Each renewal written reached its subscription.
        let renewed = try await fixture.superuser.query(
            """
            SELECT count(*) FROM ledger.subscriptions WHERE app_id = 'app-a' AND latest_transaction_id LIKE '%-t1'
            """
        ).first?.decode(Int64.self, at: 0)
        #expect(renewed == Int64(ids.count - 2))
        let differences = try await ProjectionReplay.check(pool: fixture.store.pool)
        #expect(differences.isEmpty, "\(differences.prefix(10))")
        await fixture.close()
    }
}

// MARK: - histories

/// 2026-01-01T00:00:00Z plus `n` days and `hours` hours.
func onDay(_ n: Int, hours: Int = 0) -> Instant {
    Instant(microsecondsSinceEpoch: 1_767_225_600_000_000 + Int64(n) * 86_400_000_000 + Int64(hours) * 3_600_000_000)
}

func subscriptionFacts(_ id: String, renewal: Int, user: String?) -> TransactionFacts {
    TransactionFacts(
        appUserID: user, productID: "monthly", transactionID: "\(id)-t\(renewal)", originalTransactionID: id,
        subscriptionGroupID: "g1", purchaseDate: onDay(renewal * 30), expiresDate: onDay(renewal * 30 + 30),
        signedDate: onDay(renewal * 30, hours: 1), price: Money(milliunits: 9_990, currency: "USD"))
}

/// The number of cases of `LedgerEvent`, and each case's index: exhaustive, so a new case fails to compile here
/// until the history generator makes it (`HistoryBuilder.everyCase`).
let caseCount = 28
func caseIndex(_ event: LedgerEvent) -> Int {
    switch event {
    case .purchaseConsumable: 0
    case .purchaseNonConsumable: 1
    case .purchaseNonRenewing: 2
    case .externalPurchase: 3
    case .consumed: 4
    case .subscriptionStarted: 5
    case .subscriptionRenewed: 6
    case .billingFailed: 7
    case .gracePeriodExpired: 8
    case .billingRecovered: 9
    case .subscriptionExpired: 10
    case .autoRenewChanged: 11
    case .renewalPreferenceChanged: 12
    case .priceIncrease: 13
    case .renewalExtended: 14
    case .refunded: 15
    case .refundDeclined: 16
    case .refundReversed: 17
    case .revoked: 18
    case .consumptionRequested: 19
    case .linked: 20
    case .transferred: 21
    case .appStoreNotification: 22
    case .consumptionInformationSent: 23
    case .consumptionAnswerWithheld: 24
    case .consumptionConsentRecorded: 25
    case .grantGiven: 26
    case .grantRevoked: 27
    }
}

/// One planned write, made the way the ledger's writers make it.
enum HistoryWrite: Sendable {
    /// An append to `stream` under the event's own idempotency key.
    case append(app: String, stream: String, event: LedgerEvent)
    /// `RestoreOperation`: links or transfers the purchases to the user under the policy (may be refused).
    case restore(app: String, ids: [String], user: String, policy: TransferPolicy, at: Instant)
    /// `PurchaseOperations.consume` (may be refused: unknown, not yet bought, another user's, consumed).
    case consume(app: String, id: String, user: String, at: Instant)

    var event: LedgerEvent? {
        if case .append(_, _, let event) = self { return event }
        return nil
    }

}

/// A random history of one app over a small universe (a few subscriptions and one-time purchases, three users), so
/// facts collide: every case of `LedgerEvent` at least once, identity events split per transaction, stray events
/// outside their keys' own streams, and text that COPY must escape (tabs, newlines, backslashes, `\N`).
struct HistoryBuilder {
    let app: String
    var random: ReadModelRebuildTests.SeededGenerator
    var writes: [HistoryWrite] = []

    static let users = ["u0", "u1", "u\t2 \\ ünï"]
    static let payloads = ["plain", "tab\there", "back\\slash", "line\nbreak\r", "\\N", "ünïcödé ✓ \"quoted\"", "{\"json\": [1, 2.50]}"]

    init(app: String, random: ReadModelRebuildTests.SeededGenerator) {
        self.app = app
        self.random = random
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }
    mutating func pick<T>(_ options: [T]) -> T { options[int(0...options.count - 1)] }

    /// Appends `event` to its own stream(s), split per transaction like every writer of the ledger does.
    mutating func record(_ event: LedgerEvent) {
        for part in event.perOriginalTransaction {
            let stream: String
            if case .appStoreNotification(let notification) = part {
                stream =
                    notification.originalTransactionID.map(LedgerStreams.purchase(originalTransactionID:))
                    ?? LedgerStreams.notification(uuid: notification.notificationUUID)
            } else if let id = part.originalTransactionIDs.first {
                stream = LedgerStreams.purchase(originalTransactionID: id)
            } else if case .consumptionConsentRecorded(let consent) = part {
                stream = LedgerStreams.user(appUserID: consent.appUserID)
            } else if case .grantGiven(let grant) = part {
                stream = LedgerStreams.user(appUserID: grant.appUserID)
            } else if case .grantRevoked(let revocation) = part {
                stream = LedgerStreams.user(appUserID: revocation.appUserID)
            } else {
                continue
            }
            writes.append(.append(app: app, stream: stream, event: part))
        }
    }

    /// Appends `event` whole to a stream that is not its keys' own: an older writer's layout.
    mutating func stray(_ event: LedgerEvent, stream: String) {
        writes.append(.append(app: app, stream: stream, event: event))
    }

    mutating func facts(
        _ id: String, transaction: String, product: String, user: String?, group: String?, day n: Int,
        expires: Int?, environment: StoreEnvironment
    ) -> TransactionFacts {
        let offer: Offer? =
            switch int(0...9) {
            case 0: Offer(type: .introductory, paymentMode: "FREE_TRIAL", period: "P1W")
            case 1: Offer(type: .promotional, identifier: pick(["promo-1", "promo\t2"]), paymentMode: "PAY_AS_YOU_GO", period: "P1M")
            case 2: Offer(type: .winBack, identifier: "back")
            default: nil
            }
        return TransactionFacts(
            appUserID: user, productID: product, transactionID: transaction, originalTransactionID: id, subscriptionGroupID: group,
            environment: environment, purchaseDate: onDay(n), originalPurchaseDate: onDay(n - int(0...3)), expiresDate: expires.map { onDay($0) },
            signedDate: onDay(n, hours: int(0...3)), price: chance(70) ? Money(milliunits: Int64(pick([990, 9_990, 49_990])), currency: "USD") : nil,
            offer: offer, familyShared: chance(10), developerPayload: chance(40) ? pick(Self.payloads) : nil, quantity: pick([1, 1, 3]),
            storefront: chance(50) ? "USA" : nil, appTransactionID: chance(30) ? "app-tx-\(int(0...2))" : nil)
    }

    mutating func reference(_ id: String, product: String = "monthly", user: String?, day n: Int) -> SubscriptionRef {
        SubscriptionRef(
            appUserID: user, productID: product, originalTransactionID: id, subscriptionGroupID: "g1",
            environment: chance(85) ? .production : .sandbox, signedDate: onDay(n, hours: int(0...23)))
    }

    /// One event of every case about subscription `id` and one-time purchase `oneTime`, then random extras.
    mutating func build() {
        let subscriptions = ["s0", "s1", "s\\2", "s3"].prefix(int(2...4)).map { $0 }
        let oneTime = ["c0", "c1", "n0", "r0", "pay-0", "pay\t1"]
        for id in subscriptions { subscription(id) }
        everyCase(subscription: subscriptions[0], consumable: "c0")
        for (index, id) in oneTime.enumerated() where chance(80) || index == 0 { purchase(id) }
        for _ in 0..<int(1...3) { identity(among: subscriptions + oneTime) }
        for index in 0..<int(1...3) { notification(index, among: subscriptions) }
        for _ in 0..<int(1...3) { strays(among: subscriptions + oneTime) }
        for _ in 0..<int(1...2) {
            writes.append(
                .restore(
                    app: app, ids: Array(Set((0..<int(1...3)).map { _ in pick(subscriptions + oneTime) })).sorted(),
                    user: pick(Self.users), policy: pick(TransferPolicy.allCases), at: onDay(int(40...120))))
        }
    }

    /// A subscription's life: started, renewed (or recovered after a billing failure), and some of what Apple says
    /// about it afterwards.
    mutating func subscription(_ id: String) {
        let user = pick(Self.users)
        let environment: StoreEnvironment = chance(85) ? .production : .sandbox
        let start = int(0...40)
        let renewals = int(0...3)
        for n in 0...renewals {
            let product = n > 0 && chance(20) ? "yearly" : "monthly"
            let t = facts(
                id, transaction: "\(id)-t\(n)", product: product, user: chance(60) ? user : nil, group: "g1", day: start + 30 * n,
                expires: start + 30 * n + 30, environment: environment)
            if n == 0 {
                record(.subscriptionStarted(SubscriptionStarted(transaction: t, isResubscribe: false)))
            } else if chance(20) {
                record(
                    .billingFailed(
                        BillingFailure(
                            subscription: reference(id, user: nil, day: start + 30 * n - 1),
                            gracePeriodExpiresAt: chance(50) ? onDay(start + 30 * n + 6) : nil)))
                record(.billingRecovered(Renewal(transaction: t)))
            } else {
                record(.subscriptionRenewed(Renewal(transaction: t)))
            }
        }
        let end = start + 30 * renewals + 30
        for _ in 0..<int(0...3) { extra(id, user: chance(30) ? user : nil, near: end, renewals: renewals) }
    }

    mutating func extra(_ id: String, user: String?, near end: Int, renewals: Int) {
        let r = reference(id, user: user, day: end - int(0...20))
        let transaction = "\(id)-t\(int(0...renewals))"
        switch int(0...12) {
        case 0:
            record(
                .billingFailed(
                    BillingFailure(
                        subscription: r, gracePeriodExpiresAt: chance(50) ? onDay(end + 6) : nil,
                        expiresDate: chance(50) ? onDay(end) : nil)))
        case 1: record(.gracePeriodExpired(GracePeriodExpired(subscription: r, expiresDate: chance(50) ? onDay(end + 6) : nil)))
        case 2:
            record(
                .subscriptionExpired(
                    Expiry(
                        subscription: r,
                        reason: pick([
                            .voluntary, .billingError, .priceIncreaseDeclined,
                            .productUnavailable, .lapsed, .other("NEW\tREASON")
                        ]),
                        expiresDate: chance(70) ? onDay(end) : nil)))
        case 3: record(.autoRenewChanged(AutoRenewChange(subscription: r, enabled: chance(50))))
        case 4:
            record(
                .renewalPreferenceChanged(
                    RenewalPreferenceChange(
                        subscription: r, kind: pick([.upgrade, .downgrade, .crossgrade, .downgradeCancelled]),
                        autoRenewProductID: pick(["yearly", "lite"]),
                        transaction: chance(40)
                            ? facts(
                                id, transaction: "\(id)-up", product: "yearly", user: user, group: "g1", day: end - 10,
                                expires: end + 355, environment: .production) : nil)))
        case 5: record(.priceIncrease(PriceIncrease(subscription: r, consent: chance(50) ? .pending : .accepted)))
        case 6:
            record(
                .renewalExtended(
                    RenewalExtension(
                        subscription: r, newExpiresDate: onDay(end + int(1...30)),
                        extendedByDays: chance(50) ? int(1...30) : nil)))
        case 7: record(.refunded(Refund(subscription: r, transactionID: transaction, refundDate: onDay(end - 5), reason: chance(50) ? "1" : nil)))
        case 8: record(.refundDeclined(RefundDeclined(subscription: r, transactionID: transaction)))
        case 9: record(.refundReversed(RefundReversed(subscription: r, transactionID: transaction)))
        case 10: record(.revoked(Revocation(subscription: r, transactionID: transaction, revocationDate: onDay(end - 3))))
        case 11: record(.consumptionRequested(ConsumptionRequest(subscription: r, transactionID: transaction)))
        default:
            let t = facts(
                id, transaction: "\(id)-re", product: "monthly", user: user, group: "g1", day: end + 10, expires: end + 40,
                environment: .production)
            record(.subscriptionStarted(SubscriptionStarted(transaction: t, isResubscribe: true)))
        }
    }

    /// One of every case at least, so that no seed leaves a case out.
    mutating func everyCase(subscription id: String, consumable: String) {
        let user = pick(Self.users)
        let t = facts(
            id, transaction: "\(id)-every", product: "monthly", user: user, group: "g1", day: 70, expires: 100,
            environment: .production)
        let r = reference(id, user: user, day: 75)
        record(.subscriptionStarted(SubscriptionStarted(transaction: t, isResubscribe: true)))
        record(
            .subscriptionRenewed(
                Renewal(
                    transaction: facts(
                        id, transaction: "\(id)-every-2", product: "monthly", user: nil, group: "g1",
                        day: 100, expires: 130, environment: .production))))
        record(.billingFailed(BillingFailure(subscription: r, gracePeriodExpiresAt: onDay(81))))
        record(.gracePeriodExpired(GracePeriodExpired(subscription: r)))
        record(
            .billingRecovered(
                Renewal(
                    transaction: facts(
                        id, transaction: "\(id)-every-3", product: "monthly", user: nil, group: "g1",
                        day: 131, expires: 161, environment: .production))))
        record(.subscriptionExpired(Expiry(subscription: r, reason: .billingError)))
        record(.autoRenewChanged(AutoRenewChange(subscription: r, enabled: false)))
        record(.renewalPreferenceChanged(RenewalPreferenceChange(subscription: r, kind: .downgrade, autoRenewProductID: "lite")))
        record(.priceIncrease(PriceIncrease(subscription: r, consent: .pending)))
        record(.renewalExtended(RenewalExtension(subscription: r, newExpiresDate: onDay(170), extendedByDays: 9)))
        record(.refunded(Refund(subscription: r, transactionID: "\(id)-every", refundDate: onDay(76))))
        record(.refundDeclined(RefundDeclined(subscription: r, transactionID: "\(id)-every")))
        record(.refundReversed(RefundReversed(subscription: r, transactionID: "\(id)-every")))
        record(.revoked(Revocation(subscription: r, transactionID: "\(id)-every-2", revocationDate: onDay(101))))
        record(.consumptionRequested(ConsumptionRequest(subscription: r, transactionID: "\(id)-every")))
        let inputs = ConsumptionInputs(
            appUserID: user, productType: .autoRenewable, periodStart: onDay(70), periodEnd: onDay(100),
            requestedAt: onDay(75), consent: nil, refundPolicy: .byConsumption, sampleContentProvided: false)
        record(
            .consumptionAnswerWithheld(
                ConsumptionAnswerWithheld(
                    originalTransactionID: id, transactionID: "\(id)-every", productID: "monthly", environment: .production,
                    requestSignedDate: onDay(75),
                    decidedAt: onDay(75, hours: 1), reason: .noConsentRecorded, inputs: inputs)))
        let consent = ConsumptionConsent(appUserID: user, consented: true, source: .app, recordedAt: onDay(75, hours: 2))
        record(.consumptionConsentRecorded(consent))
        record(
            .grantGiven(
                EntitlementGrant(
                    grantID: "grt_\(id)", appUserID: user, entitlementID: "pro", expiresAt: onDay(90), reason: "every case",
                    grantedBy: "op_test", grantedAt: onDay(75, hours: 2))))
        record(
            .grantRevoked(
                GrantRevocation(grantID: "grt_\(id)", appUserID: user, reason: "every case", revokedBy: "op_test", revokedAt: onDay(76))))
        var answered = inputs
        answered.consent = consent
        record(
            .consumptionInformationSent(
                ConsumptionInformationSent(
                    originalTransactionID: id, transactionID: "\(id)-every", productID: "monthly", environment: .production,
                    requestSignedDate: onDay(75),
                    sentAt: onDay(76),
                    answer: ConsumptionAnswer(
                        consumptionPercentage: 16_666, deliveryStatus: .delivered, refundPreference: .grantProrated,
                        sampleContentProvided: false),
                    inputs: answered, appleStatus: 202)))
        record(
            .purchaseConsumable(
                Purchase(
                    transaction: facts(
                        consumable, transaction: consumable, product: "coins", user: user, group: nil,
                        day: 71, expires: nil, environment: .production))))
        record(
            .consumed(
                Consumption(
                    appUserID: user, productID: "coins", transactionID: consumable, originalTransactionID: consumable,
                    consumedAt: onDay(72))))
        record(
            .purchaseNonConsumable(
                Purchase(
                    transaction: facts(
                        "n-every", transaction: "n-every", product: "lifetime", user: nil, group: nil,
                        day: 73, expires: nil, environment: .production))))
        record(
            .purchaseNonRenewing(
                Purchase(
                    transaction: facts(
                        "r-every", transaction: "r-every", product: "pass", user: user, group: nil,
                        day: 74, expires: 104, environment: .sandbox))))
        record(
            .externalPurchase(
                ExternalPurchase(
                    appUserID: user, productID: "web", productType: .autoRenewable, paymentID: "pay-every",
                    provider: "bluesnap", purchasedAt: onDay(75), expiresDate: onDay(105),
                    price: Money(milliunits: 4_990, currency: "EUR"), developerPayload: "web\tpayload")))
        record(.linked(TransactionLink(appUserID: pick(Self.users), originalTransactionIDs: [id, "n-every"], linkedAt: onDay(77), source: .upload)))
        record(
            .transferred(
                Transfer(
                    fromUserID: user, toUserID: pick(Self.users), originalTransactionIDs: [id, consumable, "pay-every"],
                    transferredAt: onDay(78), policy: .transfer)))
        record(
            .appStoreNotification(
                AppStoreNotification(
                    notificationType: "DID_RENEW", notificationUUID: "\(app)-every", signedDate: onDay(100),
                    environment: .production, originalTransactionID: id,
                    rawJSON: #"{"notificationType":"DID_RENEW","data":{"n":1.50}}"#)))
        writes.append(.consume(app: app, id: consumable, user: user, at: onDay(80)))
    }

    /// A one-time purchase: consumable (c…), non-consumable (n…), non-renewing (r…) or external (pay…), and what may
    /// follow it.
    mutating func purchase(_ id: String) {
        let user = pick(Self.users)
        let n = int(0...90)
        let environment: StoreEnvironment = chance(80) ? .production : pick([.sandbox, .xcode])
        switch id.first ?? " " {
        case "c":
            record(
                .purchaseConsumable(
                    Purchase(
                        transaction: facts(
                            id, transaction: id, product: "coins", user: chance(80) ? user : nil, group: nil,
                            day: n, expires: nil, environment: environment))))
            if chance(50) { writes.append(.consume(app: app, id: id, user: chance(80) ? user : pick(Self.users), at: onDay(n + int(0...5)))) }
            if chance(30) {
                record(
                    .consumed(
                        Consumption(
                            appUserID: pick(Self.users), productID: "coins", transactionID: id, originalTransactionID: id,
                            consumedAt: onDay(n + 2))))
            }
        case "n":
            record(
                .purchaseNonConsumable(
                    Purchase(
                        transaction: facts(
                            id, transaction: id, product: "lifetime", user: chance(50) ? user : nil,
                            group: nil, day: n, expires: nil, environment: environment))))
        case "r":
            record(
                .purchaseNonRenewing(
                    Purchase(
                        transaction: facts(
                            id, transaction: id, product: "pass", user: user, group: nil, day: n,
                            expires: n + 30, environment: environment))))
        default:
            record(
                .externalPurchase(
                    ExternalPurchase(
                        appUserID: user, productID: "web", productType: pick(ProductType.allCases), paymentID: id,
                        provider: pick(["bluesnap", "paylike"]),
                        purchasedAt: onDay(n), expiresDate: chance(50) ? onDay(n + 30) : nil, price: Money(milliunits: 1_000, currency: "EUR"),
                        environment: chance(80) ? .production : StoreEnvironment(rawValue: "Test"),
                        developerPayload: chance(50) ? pick(Self.payloads) : nil)))
        }
        let r = reference(id, product: "coins", user: chance(30) ? user : nil, day: n + 3)
        switch int(0...5) {
        case 0: record(.refunded(Refund(subscription: r, transactionID: id, refundDate: onDay(n + 3))))
        case 1: record(.revoked(Revocation(subscription: r, transactionID: id, revocationDate: onDay(n + 4))))
        case 2:
            record(.refunded(Refund(subscription: r, transactionID: id, refundDate: onDay(n + 3))))
            record(.refundReversed(RefundReversed(subscription: reference(id, product: "coins", user: nil, day: n + 5), transactionID: id)))
        default: break
        }
    }

    mutating func identity(among ids: [String]) {
        let some = Array(Set((0..<int(1...3)).map { _ in pick(ids) })).sorted()
        if chance(50) {
            record(
                .linked(
                    TransactionLink(
                        appUserID: pick(Self.users), originalTransactionIDs: some, linkedAt: onDay(int(0...120)),
                        source: pick(LinkSource.allCases))))
        } else {
            record(
                .transferred(
                    Transfer(
                        fromUserID: pick(Self.users), toUserID: pick(Self.users), originalTransactionIDs: some,
                        transferredAt: onDay(int(0...120)), policy: pick(TransferPolicy.allCases))))
        }
    }

    mutating func notification(_ index: Int, among ids: [String]) {
        let id: String? = chance(50) ? pick(ids) : nil
        record(
            .appStoreNotification(
                AppStoreNotification(
                    notificationType: pick(["TEST", "DID_RENEW", "RENEWAL_EXTENSION"]), subtype: chance(50) ? "SUMMARY" : nil,
                    notificationUUID: "\(app)-n\(index)-\(int(0...999))", signedDate: onDay(int(0...120)), environment: .production,
                    originalTransactionID: id, rawJSON: #"{"signedPayload":"x\ty","n":1.50}"#)))
    }

    /// Events in streams that are not their keys' own: a whole link naming several transactions in the first one's
    /// stream, a renewal in a legacy stream, a purchase in another purchase's stream.
    mutating func strays(among ids: [String]) {
        let a = pick(ids)
        let b = pick(ids.filter { $0 != a })
        switch int(0...3) {
        case 0:
            stray(
                .linked(
                    TransactionLink(
                        appUserID: pick(Self.users), originalTransactionIDs: [a, b], linkedAt: onDay(int(0...120)),
                        source: .upload)),
                stream: LedgerStreams.purchase(originalTransactionID: a))
        case 1:
            stray(
                .subscriptionRenewed(
                    Renewal(
                        transaction: facts(
                            a, transaction: "\(a)-legacy", product: "monthly", user: pick(Self.users),
                            group: "g1", day: int(0...90), expires: 120, environment: .production))),
                stream: "legacy:\(int(0...2))")
        case 2:
            stray(
                .transferred(
                    Transfer(
                        fromUserID: pick(Self.users), toUserID: pick(Self.users), originalTransactionIDs: [a, b],
                        transferredAt: onDay(int(0...120)), policy: .transfer)),
                stream: "otx:foreign-\(int(0...2))")
        default:
            stray(
                .purchaseConsumable(
                    Purchase(
                        transaction: facts(
                            b, transaction: "\(b)-elsewhere", product: "coins", user: pick(Self.users),
                            group: nil,
                            day: int(0...90), expires: nil, environment: .production))),
                stream: LedgerStreams.purchase(originalTransactionID: a))
        }
    }
}

/// Makes the planned writes through the ledger's own writers.
struct HistoryWriter: Sendable {
    let store: EventStore

    /// Writes in order: consecutive appends as one recorder call per app (one append per stream), restores and
    /// consumes on their own (refusals are part of the history). Returns how many events were appended.
    @discardableResult
    func write(_ writes: [HistoryWrite]) async throws -> Int {
        var appended = 0
        var batch: [(app: String, stream: String, event: LedgerEvent)] = []
        func flush() async throws {
            for app in Set(batch.map(\.app)).sorted() {
                // One append to a stream may not carry a key twice: a delivery repeated within the batch goes in a
                // later call (where the log finds it already known).
                var remaining = batch.filter { $0.app == app }.map { (stream: $0.stream, event: $0.event, idempotencyKey: $0.event.idempotencyKey) }
                while !remaining.isEmpty {
                    var keys: Set<String> = []
                    let now = remaining.filter { keys.insert($0.idempotencyKey).inserted }
                    var taken: Set<String> = []
                    remaining = remaining.filter { !(keys.contains($0.idempotencyKey) && taken.insert($0.idempotencyKey).inserted) }
                    appended += try await EventRecorder(store: store).record(
                        app: app, now, occurredAt: { _ in onDay(0) },
                        metadata: EventMetadata(source: "test")
                    ).recorded
                }
            }
            batch.removeAll()
        }
        for write in writes {
            switch write {
            case .append(let app, let stream, let event):
                batch.append((app, stream, event))
            case .restore(let app, let ids, let user, let policy, let at):
                try await flush()
                do {
                    appended += try await RestoreOperation(store: store).restore(
                        app: app, originalTransactionIDs: ids, to: user, policy: policy,
                        at: at
                    ).count
                } catch is RestoreRefusal {}
            case .consume(let app, let id, let user, let at):
                try await flush()
                do {
                    try await PurchaseOperations(store: store).consume(app: app, originalTransactionID: id, by: user, at: at)
                    appended += 1
                } catch is ConsumeError {}
            }
        }
        try await flush()
        return appended
    }

    /// Begins a transaction, appends the writes' events in it (restores and consumes among them are left out: they
    /// commit on their own) and leaves it open. The caller commits it after later transactions have committed.
    func beginLate(_ writes: [HistoryWrite]) throws -> OpenTransaction {
        let connection = try PostgresConnection.connect(store.pool.configuration)
        try connection.execute("BEGIN")
        let late = OpenTransaction(connection: connection)
        try late.append(writes)
        return late
    }
}

/// A transaction that appended events and has not committed.
final class OpenTransaction {
    let connection: PostgresConnection
    private(set) var streams: Set<String> = []
    private(set) var keys: Set<String> = []

    init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Appends the events of `writes` (the appends among them) in this transaction.
    func append(_ writes: [HistoryWrite]) throws {
        for write in writes {
            guard case .append(let app, let stream, let event) = write, keys.insert(app + "|" + event.idempotencyKey).inserted else { continue }
            streams.insert(app + "|" + stream)
            let encoded = event.encoded()
            _ = try EventStore.append(
                on: connection, app: app, stream: stream, expected: .any,
                events: [
                    NewEvent(
                        type: encoded.type, schemaVersion: encoded.schemaVersion, payload: encoded.payload,
                        metadata: EventMetadata(source: "late"), idempotencyKey: event.idempotencyKey, occurredAt: onDay(0))
                ])
        }
    }

    /// Whether `write` can be made by another transaction while this one is open without waiting for it: it touches
    /// none of its streams (whose next version it holds) nor idempotency keys, and is an append (a restore or a
    /// consume may read and write any stream).
    func allows(_ write: HistoryWrite) -> Bool {
        guard case .append(let app, let stream, let event) = write else { return false }
        return !streams.contains(app + "|" + stream) && !keys.contains(app + "|" + event.idempotencyKey)
    }

    func commit() throws {
        try connection.execute("COMMIT")
    }
}

/// A value shared between tasks and threads.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    var value: Value { mutex.withLock { $0 } }

    @discardableResult
    func update<T: Sendable>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
}
