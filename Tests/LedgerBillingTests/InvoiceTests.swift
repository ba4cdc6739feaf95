import Foundation
import LedgerBilling
import LedgerDomain
import LedgerStore
import LedgerStoreTestSupport
import LedgerTenancy
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// Paying users recorded as real events in the log, in bulk (`SyntheticPayingUsers`): `users` subscriptions started on `day`, one per
/// user `prefix0…`, by the same SQL path the service's appends take (the hash trigger included).
func recordPayingUsers(
    _ fixture: StoreFixture, app: String, prefix: String, users: Int, day: Instant,
    environment: StoreEnvironment = .production
) async throws {
    try await SyntheticPayingUsers.insert(on: fixture.superuser, app: app, prefix: prefix, users: users, day: day, environment: environment)
}

@Suite struct InvoiceTests {
    static let march = CalendarMonth(year: 2026, month: 3)
    static let april = CalendarMonth(year: 2026, month: 4)
    static let march10 = Instant(microsecondsSinceEpoch: 1_773_100_800_000_000)  // 2026-03-10
    static let april10 = Instant(microsecondsSinceEpoch: 1_775_779_200_000_000)  // 2026-04-10

    @Test func theSeedTableIsTheDefaultPlan() throws {
        let expected: [(Int, Int64)] = [(0, 0), (100, 0), (101, 1), (1_000, 900), (1_001, 902), (10_000, 18_900), (50_000, 138_900)]
        for (users, cents) in expected { #expect(PricePlan.standard.total(for: users) == cents, "\(users) users") }
        let bands = PricePlan.standard.bands(for: 1_001)
        #expect(bands.map(\.users) == [100, 900, 1])
        #expect(bands.map(\.amountMinor) == [0, 900, 2])
        #expect(throws: PricePlan.Problem.self) {
            try PricePlan(
                id: "gap", currency: "USD",
                tiers: [
                    .init(from: 1, to: 10, unitPriceMinor: 0),
                    .init(
                        from: 12, to: nil,
                        unitPriceMinor: 1)
                ]
            ).validate()
        }
        #expect(throws: PricePlan.Problem.self) {
            try PricePlan(
                id: "x", currency: "usd",
                tiers: [
                    .init(
                        from: 1, to: nil,
                        unitPriceMinor: 1)
                ]
            ).validate()
        }
    }

    /// The seed's figures, from real events in PostgreSQL: one account per figure.
    @Test(.timeLimit(.minutes(10))) func seedFiguresFromRealEvents() async throws {
        let fixture = try await StoreFixture.make(on: .bulkLoads)
        let tenancy = TenancyStore(pool: fixture.store.pool)
        let invoices = InvoiceStore(pool: fixture.store.pool)
        let expected: [(users: Int, total: Int64)] = [(100, 0), (101, 1), (1_000, 900), (1_001, 902), (10_000, 18_900), (50_000, 138_900)]
        var accounts: [String: Int64] = [:]
        for (index, figure) in expected.enumerated() {
            let account = try await tenancy.createAccount(name: "figure \(figure.users)")
            // Spread over two apps: the quantity is the sum of each app's paying users.
            let a = try await tenancy.createApp(.init(accountID: account.id, name: "A", bundleID: "com.a"))
            let b = try await tenancy.createApp(.init(accountID: account.id, name: "B", bundleID: "com.b"))
            try await recordPayingUsers(fixture, app: a.id, prefix: "f\(index)a", users: figure.users / 2, day: Self.march10)
            try await recordPayingUsers(fixture, app: b.id, prefix: "f\(index)b", users: figure.users - figure.users / 2, day: Self.march10)
            accounts[account.id] = figure.total
        }
        let results = try await invoices.finalizeAll(month: Self.march)
        #expect(results.count == expected.count)
        for (invoice, created) in results {
            #expect(created)
            #expect(invoice.content.totalMinor == accounts[invoice.accountID], "\(invoice.content.payingUsers) users")
        }
        // Numbers are gapless within the year, and a second run creates nothing.
        #expect(results.map(\.invoice.number).sorted() == Array(1...expected.count))
        let again = try await invoices.finalizeAll(month: Self.march)
        #expect(again.allSatisfy { !$0.created })
        #expect(try await invoices.list().count == expected.count)
        await fixture.close()
    }

    @Test func sandboxIsNotBilledRefundsStayCountedAndUsersCountOncePerAppAndMonth() async throws {
        let fixture = try await StoreFixture.make()
        let tenancy = TenancyStore(pool: fixture.store.pool)
        let account = try await tenancy.createAccount(name: "Acme")
        let app = try await tenancy.createApp(.init(accountID: account.id, name: "A", bundleID: "com.a"))
        let other = try await tenancy.createApp(.init(accountID: account.id, name: "B", bundleID: "com.b"))
        let recorder = EventRecorder(store: fixture.store)
        func facts(_ id: String, user: String, environment: StoreEnvironment = .production, day: Instant = Self.march10) -> TransactionFacts {
            TransactionFacts(
                appUserID: user, productID: "p", transactionID: id, originalTransactionID: id, environment: environment,
                purchaseDate: day, expiresDate: day.adding(days: 30), signedDate: day)
        }
        func record(_ app: String, _ events: [LedgerEvent]) async throws {
            _ = try await recorder.record(
                app: app,
                events.map {
                    (
                        LedgerStreams.purchase(originalTransactionID: $0.originalTransactionIDs[0]), $0,
                        $0.idempotencyKey
                    )
                },
                occurredAt: { _ in Self.march10 }, metadata: EventMetadata(source: "test"))
        }
        try await record(
            app.id,
            [
                .subscriptionStarted(SubscriptionStarted(transaction: facts("s1", user: "sandboxer", environment: .sandbox))),
                .purchaseConsumable(Purchase(transaction: facts("x1", user: "xcoder", environment: .xcode))),
                .subscriptionStarted(SubscriptionStarted(transaction: facts("r1", user: "refunded"))),
                .refunded(
                    Refund(
                        subscription: SubscriptionRef(productID: "p", originalTransactionID: "r1", signedDate: Self.march10.adding(days: 2)),
                        transactionID: "r1", refundDate: Self.march10.adding(days: 2))),
                .subscriptionStarted(SubscriptionStarted(transaction: facts("d1", user: "double"))),
                .purchaseConsumable(Purchase(transaction: facts("d2", user: "double"))),
                .subscriptionStarted(SubscriptionStarted(transaction: facts("a1", user: "april", day: Self.april10)))
            ])
        try await record(other.id, [.purchaseConsumable(Purchase(transaction: facts("o1", user: "double")))])
        let draft = try await InvoiceStore(pool: fixture.store.pool).draft(account: account.id, month: Self.march)
        #expect(draft.apps.map(\.payingUsers) == (app.id < other.id ? [2, 1] : [1, 2]), "\(draft.apps)")
        #expect(draft.payingUsers == 3)
        await fixture.close()
    }

    @Test func aLatePayingUserIsAnAdjustmentOnTheNextInvoiceAndFinalizedInvoicesNeverChange() async throws {
        let fixture = try await StoreFixture.make()
        let tenancy = TenancyStore(pool: fixture.store.pool)
        let invoices = InvoiceStore(pool: fixture.store.pool)
        let account = try await tenancy.createAccount(name: "Acme")
        let app = try await tenancy.createApp(.init(accountID: account.id, name: "A", bundleID: "com.a"))
        try await recordPayingUsers(fixture, app: app.id, prefix: "m", users: 150, day: Self.march10)
        let (march, _) = try await invoices.finalize(account: account.id, month: Self.march)
        #expect(march.content.totalMinor == 50)
        // Three March users become known after March was finalized, and 120 April users.
        try await recordPayingUsers(fixture, app: app.id, prefix: "late", users: 3, day: Self.march10)
        try await recordPayingUsers(fixture, app: app.id, prefix: "apr", users: 120, day: Self.april10)
        let (april, _) = try await invoices.finalize(account: account.id, month: Self.april)
        #expect(april.content.adjustments.map(\.users) == [3])
        #expect(april.content.adjustments.first?.month == "2026-03")
        #expect(april.content.adjustmentsMinor == 3)
        #expect(april.content.totalMinor == 20 + 3)
        // March is untouched and still reproduces exactly from the log as of its finalization.
        let stored = try #require(try await invoices.invoice(id: march.id))
        #expect(stored.contentHash == march.contentHash)
        for invoice in [march, april] {
            let reproduced = try await invoices.reproduce(id: invoice.id)
            #expect(reproduced.recomputedHash == invoice.contentHash)
            #expect(reproduced.recomputed == invoice.content)
        }
        // The database refuses to change or delete a finalized invoice, even for its owner.
        await #expect(throws: PostgresError.self) {
            try await fixture.superuser.query("UPDATE ledger.invoices SET content = '{}' WHERE id = \(march.id)")
        }
        await #expect(throws: PostgresError.self) {
            try await fixture.superuser.query("DELETE FROM ledger.invoices WHERE id = \(march.id)")
        }
        // March was adjusted on April's invoice: voiding it is refused until April is voided.
        await #expect(throws: InvoiceError.self) { try await invoices.void(invoiceID: march.id, reason: "wrong") }
        let (voided, replacement) = try await invoices.void(invoiceID: april.id, reason: "customer asked")
        #expect(voided.status == "voided" && voided.replacedBy == replacement.id && voided.contentHash == april.contentHash)
        #expect(replacement.replaces == april.id)
        #expect(replacement.number == april.number + 1)
        #expect(try await invoices.reproduce(id: replacement.id).recomputedHash == replacement.contentHash)
        await fixture.close()
    }

    @Test func concurrentFinalizationsMakeOneInvoiceWithoutGaps() async throws {
        let fixture = try await StoreFixture.make()
        let tenancy = TenancyStore(pool: fixture.store.pool)
        var accounts: [String] = []
        for index in 0..<3 {
            let account = try await tenancy.createAccount(name: "acct \(index)")
            let app = try await tenancy.createApp(.init(accountID: account.id, name: "A", bundleID: "com.a"))
            try await recordPayingUsers(fixture, app: app.id, prefix: "c\(index)", users: 5, day: Self.march10)
            accounts.append(account.id)
        }
        // Two "processes": separate pools, racing on every account.
        let pools = [fixture.store.pool, PostgresPool(configuration: PostgresConfiguration(connectionString: fixture.connectionString), size: 4)]
        let results = try await withThrowingTaskGroup(of: (String, Int, Bool).self) { group in
            for account in accounts {
                for pool in pools {
                    for _ in 0..<3 {
                        group.addTask {
                            let (invoice, created) = try await InvoiceStore(pool: pool).finalize(account: account, month: Self.march)
                            return (invoice.id, invoice.number, created)
                        }
                    }
                }
            }
            var all: [(String, Int, Bool)] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.filter(\.2).count == accounts.count)
        #expect(Set(results.map(\.0)).count == accounts.count)
        #expect(Set(results.map(\.1)).sorted() == [1, 2, 3])
        await pools[1].shutdown()
        await fixture.close()
    }

    /// A clock stopped at `instant` (the service's "now" for one store).
    static func stopped(at instant: Instant) -> LedgerClock {
        LedgerClock { instant }
    }

    /// Only a month that has ended by the service clock is finalized: a future month and the running one are refused
    /// with nothing numbered (their year's first number stays free), drafts of them still work, and from the first
    /// minute after the month ends it finalizes, as number 1 of its year.
    @Test func aMonthIsFinalizedOnlyOnceItHasEnded() async throws {
        let fixture = try await StoreFixture.make()
        let tenancy = TenancyStore(pool: fixture.store.pool)
        let account = try await tenancy.createAccount(name: "Acme")
        let app = try await tenancy.createApp(.init(accountID: account.id, name: "A", bundleID: "com.a"))
        try await recordPayingUsers(fixture, app: app.id, prefix: "m", users: 3, day: Self.march10)
        let april1 = Instant(microsecondsSinceEpoch: 1_775_001_600_000_000)  // 2026-04-01T00:00:00Z, when March ends
        let lastMicrosecondOfMarch = InvoiceStore(pool: fixture.store.pool, clock: Self.stopped(at: april1.adding(microseconds: -1)))
        let future = CalendarMonth(year: 2031, month: 5)

        for month in [future, Self.march] {
            await #expect(throws: InvoiceError.monthNotEnded(month)) {
                try await lastMicrosecondOfMarch.finalize(account: account.id, month: month)
            }
            await #expect(throws: InvoiceError.monthNotEnded(month)) { try await lastMicrosecondOfMarch.finalizeAll(month: month) }
        }
        #expect(InvoiceError.monthNotEnded(future).description.contains("from 2031-06-01 on"))
        #expect(try await lastMicrosecondOfMarch.draft(account: account.id, month: Self.march).payingUsers == 3)
        #expect(try await lastMicrosecondOfMarch.list().isEmpty)
        #expect(try await fixture.superuser.query("SELECT year FROM ledger.invoice_numbers").isEmpty)

        // The first minute after March: finalized, number 1 of 2026 (the refusals used up nothing).
        let firstMinuteOfApril = InvoiceStore(pool: fixture.store.pool, clock: Self.stopped(at: april1.adding(microseconds: 59_999_999)))
        let (march, created) = try await firstMinuteOfApril.finalize(account: account.id, month: Self.march)
        #expect(created && march.displayNumber == "2026-000001" && march.content.payingUsers == 3)
        // Voiding finalizes a replacement for the same month: refused too while the month runs (here: an invoice a
        // version without this rule finalized early, seen by a clock still in March).
        await #expect(throws: InvoiceError.monthNotEnded(Self.march)) {
            try await lastMicrosecondOfMarch.void(invoiceID: march.id, reason: "premature")
        }
        #expect(try await firstMinuteOfApril.invoice(id: march.id)?.status == "finalized")
        let (_, replacement) = try await firstMinuteOfApril.void(invoiceID: march.id, reason: "recount")
        #expect(replacement.displayNumber == "2026-000002")
        await fixture.close()
    }
}
