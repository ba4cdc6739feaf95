import LedgerBilling
import LedgerDomain
import LedgerStore
import LedgerStoreTestSupport
import LedgerTenancy
import PostgresClient
import Testing
import UTCTime

/// Invoices are finalized from the paying-users read model and reproduced from the log: on generated months with
/// late users, ownership changes and adjustments, every finalized invoice must be what the log gives.
@Suite struct InvoiceReadModelTests {
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let january = Instant(microsecondsSinceEpoch: 1_767_225_600_000_000)  // 2026-01-01
    static func day(_ n: Int) -> Instant { Instant(microsecondsSinceEpoch: january.microsecondsSinceEpoch + Int64(n) * 86_400_000_000) }
    static let months = (1...4).map { CalendarMonth(year: 2026, month: $0) }

    /// One month's facts for `app`: purchases and renewals (some without a user, some in the sandbox), one-time
    /// purchases, links and transfers that change who owns a subscription.
    static func facts(month: Int, app: Int, using random: inout SplitMix) -> [LedgerEvent] {
        var events: [LedgerEvent] = []
        for _ in 0..<Int.random(in: 3...12, using: &random) {
            let otx = "a\(app)-s\(Int.random(in: 0..<10, using: &random))"
            let user: String? = Bool.random(using: &random) ? "u\(Int.random(in: 0..<6, using: &random))" : nil
            let day = Self.day(month * 31 + Int.random(in: 0..<28, using: &random))
            let transaction = TransactionFacts(
                appUserID: user, productID: "monthly", transactionID: "\(otx)-\(month)-\(Int.random(in: 0..<3, using: &random))",
                originalTransactionID: otx, environment: Int.random(in: 0..<6, using: &random) == 0 ? .sandbox : .production,
                purchaseDate: day, expiresDate: day.adding(days: 30), signedDate: day)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: events.append(.subscriptionStarted(SubscriptionStarted(transaction: transaction)))
            case 1, 2: events.append(.subscriptionRenewed(Renewal(transaction: transaction)))
            case 3:
                var coin = transaction
                (coin.originalTransactionID, coin.transactionID) = ("a\(app)-c\(month)-\(events.count)", "a\(app)-c\(month)-\(events.count)")
                events.append(.purchaseConsumable(Purchase(transaction: coin)))
            case 4:
                events.append(
                    .linked(
                        TransactionLink(
                            appUserID: "u\(Int.random(in: 0..<6, using: &random))", originalTransactionIDs: [otx],
                            linkedAt: day, source: .upload)))
            default:
                events.append(
                    .transferred(
                        Transfer(
                            fromUserID: "u0", toUserID: "u\(Int.random(in: 0..<6, using: &random))",
                            originalTransactionIDs: [otx], transferredAt: day, policy: .transfer)))
            }
        }
        return events
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func invoicesFromTheReadModelAreWhatTheLogGives(seed: UInt64) async throws {
        var random = SplitMix(state: seed)
        let fixture = try await StoreFixture.make()
        let tenancy = TenancyStore(pool: fixture.store.pool)
        let invoices = InvoiceStore(pool: fixture.store.pool)
        let recorder = EventRecorder(store: fixture.store)
        var apps: [String] = []
        for account in 0..<2 {
            let record = try await tenancy.createAccount(name: "account \(account)")
            for app in 0..<(account + 1) {
                apps.append(try await tenancy.createApp(.init(accountID: record.id, name: "app \(app)", bundleID: "com.app\(account)\(app)")).id)
            }
        }
        func record(_ events: [LedgerEvent], app: String) async throws {
            var seen: Set<String> = []  // the same fact twice in one append is refused; across appends it is a no-op
            let appends = events.flatMap(\.perOriginalTransaction).filter { seen.insert($0.idempotencyKey).inserted }.map {
                (LedgerStreams.purchase(originalTransactionID: $0.originalTransactionIDs[0]), $0, $0.idempotencyKey)
            }
            _ = try await recorder.record(app: app, appends, occurredAt: { _ in Self.january }, metadata: EventMetadata(source: "test"))
        }
        var late: [(app: String, events: [LedgerEvent])] = []
        var finalized: [Invoice] = []
        for (index, month) in Self.months.enumerated() {
            for (appIndex, app) in apps.enumerated() {
                var events = Self.facts(month: index, app: appIndex, using: &random)
                // Some of the month's facts arrive only after it was invoiced: next month's adjustments.
                let kept = events.count - Int.random(in: 0...3, using: &random)
                late.append((app, Array(events[kept...])))
                events.removeLast(events.count - kept)
                try await record(events, app: app)
            }
            finalized += try await invoices.finalizeAll(month: month).map(\.invoice)
            for (app, events) in late { try await record(events, app: app) }
            late.removeAll()
        }

        #expect(finalized.count == 2 * Self.months.count)
        #expect(finalized.contains { !$0.content.adjustments.isEmpty }, "seed \(seed): no late user became an adjustment")
        for invoice in finalized {
            let reproduction = try await invoices.reproduce(id: invoice.id)
            #expect(reproduction.isReproduced, "seed \(seed): invoice \(invoice.displayNumber) is not what the log gives")
        }
        // The read model's counts now equal a fold of the whole log.
        let allApps = apps
        let events = try await fixture.store.pool.withConnection { connection in
            try allApps.flatMap { try ProjectionReplay.events(app: $0, asOf: nil, on: connection) }
        }
        var states: [String: [PayingPurchase]] = [:]
        for app in apps {
            states[app] = Array(foldAll(PayingUsersReducer.self, events: events.filter { $0.appID == app }, asOf: nil).values)
        }
        try await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
        let counted = try await fixture.store.pool.withConnection { try PayingUsersQueries.counts(apps: allApps, on: $0) }
        var usage: [String: [String: Int]] = [:]
        for row in counted { usage[row.month, default: [:]][row.appID] = row.payingUsers }
        #expect(usage == PayingUsersReducer.usage(states), "seed \(seed)")
        await fixture.close()
    }
}
