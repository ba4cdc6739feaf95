import LedgerDomain
@testable import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// Status reads answer from the read models' typed columns alone (`UserQueries.summaries`): every value of
/// `SubscriptionSummary` and `PurchaseSummary` must come back from a row exactly as the fold of the log says,
/// whether the row was written by the live worker (upsert) or by a rebuild (COPY, no `fold_state`).
@Suite struct ReadModelSummaryTests {
    static let day0 = Instant(microsecondsSinceEpoch: 1_767_225_600_000_000)
    static func day(_ n: Int, hours: Int = 0) -> Instant {
        day0.adding(microseconds: Int64(n) * 86_400_000_000 + Int64(hours) * 3_600_000_000)
    }

    /// A history that sets every summary value at least once, with product ids that need quoting in a `text[]`.
    static var history: [LedgerEvent] {
        let odd = #"pro "monthly", \ {yearly}"#
        func facts(_ id: String, product: String, purchased: Int) -> TransactionFacts {
            TransactionFacts(
                appUserID: "u1", productID: product, transactionID: id, originalTransactionID: "s1", subscriptionGroupID: "g1",
                environment: .sandbox, purchaseDate: day(purchased), expiresDate: day(purchased + 30), signedDate: day(purchased),
                price: Money(milliunits: 9_990, currency: "EUR"),
                offer: Offer(type: .promotional, identifier: "spring", paymentMode: "PAY_AS_YOU_GO", period: "P1M"),
                familyShared: true, appTransactionID: "app-tx-1", billingPlanType: "MONTHLY",
                commitment: Commitment(
                    billingPeriodNumber: 2, totalBillingPeriods: 12, expiresAt: day(365),
                    priceAfter: Money(milliunits: 12_990, currency: "EUR")))
        }
        let ref = SubscriptionRef(
            appUserID: "u1", productID: "yearly", originalTransactionID: "s1", subscriptionGroupID: "g1",
            environment: .sandbox, signedDate: day(31, hours: 2))
        func oneTime(_ id: String, _ product: String) -> TransactionFacts {
            TransactionFacts(
                appUserID: "u1", productID: product, transactionID: id, originalTransactionID: id, purchaseDate: day(2),
                signedDate: day(2), price: Money(milliunits: 990, currency: "USD"), familyShared: true,
                developerPayload: "order\t42", quantity: 3)
        }
        return [
            .subscriptionStarted(SubscriptionStarted(transaction: facts("s1-0", product: odd, purchased: 0))),
            .subscriptionRenewed(Renewal(transaction: facts("s1-1", product: "yearly", purchased: 30))),
            .billingFailed(BillingFailure(subscription: ref, gracePeriodExpiresAt: day(66), expiresDate: day(60))),
            .priceIncrease(PriceIncrease(subscription: ref, consent: .pending)),
            .renewalPreferenceChanged(RenewalPreferenceChange(subscription: ref, kind: .downgrade, autoRenewProductID: "lite")),
            .autoRenewChanged(AutoRenewChange(subscription: ref, enabled: false)),
            .purchaseConsumable(Purchase(transaction: oneTime("c1", "coins"))),
            .consumed(Consumption(appUserID: "u1", productID: "coins", transactionID: "c1", originalTransactionID: "c1", consumedAt: day(3))),
            .purchaseConsumable(Purchase(transaction: oneTime("c2", "coins"))),
            .purchaseNonConsumable(Purchase(transaction: oneTime("n1", "lifetime"))),
            .refunded(
                Refund(
                    subscription: SubscriptionRef(appUserID: "u1", productID: "lifetime", originalTransactionID: "n1", signedDate: day(4)),
                    transactionID: "n1", refundDate: day(4))),
            .externalPurchase(
                ExternalPurchase(
                    appUserID: "u1", productID: "web-pro", productType: .nonRenewing, paymentID: "pay-1",
                    provider: "paylike", purchasedAt: day(5), expiresDate: day(35),
                    price: Money(milliunits: 4_500, currency: "DKK"), developerPayload: "web"))
        ]
    }

    @Test func everySummaryValueComesBackFromTheTypedColumns() async throws {
        let fixture = try await StoreFixture.make()
        let recorder = EventRecorder(store: fixture.store)
        try await recorder.record(app: "app", Self.history, at: Self.day0)
        let events = try await fixture.store.pool.withConnection { try ProjectionReplay.events(app: "app", asOf: nil, on: $0) }
        let subscriptions = foldAll(SubscriptionStatusReducer.self, events: events, asOf: nil).values.map(\.summary)
        let purchases = foldAll(PurchaseRecordReducer.self, events: events, asOf: nil).values.map(\.summary)
        // The history reaches every value: a summary left at its default would not test its column.
        let s1 = try #require(subscriptions.first { $0.originalTransactionID == "s1" })
        #expect(s1.state == .inGracePeriod && s1.graceExpiresAt != nil && s1.offer?.period == "P1M" && s1.commitment != nil)
        #expect(s1.productsEverPurchased.count == 2 && s1.nextProductID == "lite" && s1.priceIncrease == .pending && s1.autoRenew == false)
        #expect(Set(purchases.map(\.details?.source)) == [.appStore, .external(provider: "paylike")])
        #expect(purchases.contains { $0.isConsumed } && purchases.contains { $0.isWithdrawn })

        let queries = UserQueries(pool: fixture.store.pool)
        func expectTheFold(_ written: String) async throws {
            let read = try await queries.summaries(app: "app", owners: ["u1"])
            #expect(
                read.subscriptions.sorted { $0.originalTransactionID < $1.originalTransactionID }
                    == subscriptions.sorted { $0.originalTransactionID < $1.originalTransactionID }, "\(written)")
            #expect(
                read.purchases.sorted { $0.originalTransactionID < $1.originalTransactionID }
                    == purchases.sorted { $0.originalTransactionID < $1.originalTransactionID }, "\(written)")
        }
        try await ProjectionWorker(pool: fixture.store.pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
        try await expectTheFold("written by the live worker")
        try await TestDatabase.waitForHorizon(fixture.connectionString)
        try await ProjectionReplay.rebuild(pool: fixture.store.pool)
        try await expectTheFold("written by a rebuild")
        // Another owner sees none of it; an excluded id is left out.
        #expect(try await queries.summaries(app: "app", owners: ["u2"]) == OwnedSummaries())
        let excluding = try await queries.summaries(app: "app", owners: ["u1"]).excluding(["s1", "c1"])
        #expect(!excluding.subscriptions.contains { $0.originalTransactionID == "s1" })
        #expect(excluding.purchases.map(\.originalTransactionID).sorted() == ["c2", "n1", "pay-1"])
        await fixture.close()
    }
}
