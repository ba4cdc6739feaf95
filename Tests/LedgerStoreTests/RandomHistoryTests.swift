import LedgerDomain
import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import Testing
import UTCTime

/// Random histories through the real pipeline: recorded shuffled and duplicated, projected in random batch sizes.
/// The live projections must equal a rebuild from the log and a pure fold of the same events.
@Suite struct RandomHistoryTests {
    /// SplitMix64: a small seeded generator, so a failing seed can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let day0 = Instant(microsecondsSinceEpoch: 1_767_225_600_000_000)
    static func day(_ n: Int) -> Instant { Instant(microsecondsSinceEpoch: day0.microsecondsSinceEpoch + Int64(n) * 86_400_000_000) }

    static func history(using random: inout SeededGenerator) -> [LedgerEvent] {
        var events: [LedgerEvent] = []
        for s in 0..<Int.random(in: 1...4, using: &random) {
            let otid = "o\(s)"
            let user = "u\(Int.random(in: 0...2, using: &random))"
            let renewals = Int.random(in: 0...4, using: &random)
            for n in 0...renewals {
                let facts = TransactionFacts(
                    appUserID: user, productID: ["monthly", "yearly"][n % 2], transactionID: "\(otid)-t\(n)",
                    originalTransactionID: otid, subscriptionGroupID: "g1", purchaseDate: day(n * 30),
                    expiresDate: day(n * 30 + 30), signedDate: day(n * 30))
                events.append(
                    n == 0
                        ? .subscriptionStarted(SubscriptionStarted(transaction: facts, isResubscribe: false))
                        : .subscriptionRenewed(Renewal(transaction: facts)))
            }
            let ref = SubscriptionRef(
                appUserID: user, productID: "monthly", originalTransactionID: otid, subscriptionGroupID: "g1",
                signedDate: day(renewals * 30 + 5))
            switch Int.random(in: 0...3, using: &random) {
            case 0: events.append(.subscriptionExpired(Expiry(subscription: ref, reason: .voluntary, expiresDate: day(renewals * 30 + 30))))
            case 1:
                events.append(
                    .refunded(
                        Refund(
                            subscription: ref, transactionID: "\(otid)-t\(renewals)", refundDate: day(renewals * 30 + 5),
                            reason: "1")))
            case 2: events.append(.autoRenewChanged(AutoRenewChange(subscription: ref, enabled: false)))
            default: break
            }
        }
        for c in 0..<Int.random(in: 0...3, using: &random) {
            let facts = TransactionFacts(
                appUserID: "u\(c)", productID: "coins", transactionID: "c\(c)", originalTransactionID: "c\(c)",
                purchaseDate: day(c), signedDate: day(c))
            events.append(.purchaseConsumable(Purchase(transaction: facts)))
            if Bool.random(using: &random) {
                events.append(
                    .consumed(
                        Consumption(
                            appUserID: "u\(c)", productID: "coins", transactionID: "c\(c)", originalTransactionID: "c\(c)",
                            consumedAt: day(c + 1))))
            }
        }
        return events
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func liveProjectionsEqualARebuildAndAPureFold(seed: UInt64) async throws {
        var random = SeededGenerator(state: seed)
        let fixture = try await StoreFixture.make()
        let history = Self.history(using: &random)
        // Delivery: every event 1–3 times, shuffled, in random-sized bursts, projected between bursts.
        var deliveries = history.flatMap { event in Array(repeating: event, count: Int.random(in: 1...3, using: &random)) }
        deliveries.shuffle(using: &random)
        let recorder = EventRecorder(store: fixture.store)
        while !deliveries.isEmpty {
            let burst = deliveries.prefix(Int.random(in: 1...5, using: &random))
            deliveries.removeFirst(burst.count)
            try await recorder.record(app: "app", burst, at: Self.day0)
            let runners = ProjectionCatalog.runners()
            _ = try await fixture.store.pool.withConnection { connection in try runners.map { try $0.runBatch(on: connection) } }
        }
        try await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()

        // Each distinct fact is in the log once.
        let stored = try await fixture.superuser.query("SELECT count(*) FROM ledger.events").first!.decode(Int64.self, at: 0)
        #expect(stored == Int64(Set(history.flatMap(\.perOriginalTransaction).map(\.idempotencyKey)).count), "seed \(seed)")

        // Live = rebuild from the log.
        let differences = try await ProjectionReplay.check(pool: fixture.store.pool)
        #expect(differences.isEmpty, "seed \(seed): \(differences)")

        // Live = pure fold, and as-of the last instant = the full fold.
        let events = try await fixture.store.pool.withConnection { try ProjectionReplay.events(app: "app", asOf: nil, on: $0) }
        let last = events.map(\.recordedAt).max()
        let folded = foldAll(SubscriptionStatusReducer.self, events: events, asOf: nil)
        #expect(foldAll(SubscriptionStatusReducer.self, events: events, asOf: last) == folded)
        for (key, state) in folded {
            let row = try await fixture.superuser.query(
                """
                SELECT fold_state::text FROM ledger.subscriptions WHERE original_transaction_id = \(key)
                """
            ).first?.decode(String.self, at: 0)
            #expect(try row.map { try StateCodec.decode(SubscriptionStatus.self, from: $0) } == state, "seed \(seed) key \(key)")
        }
        await fixture.close()
    }
}
