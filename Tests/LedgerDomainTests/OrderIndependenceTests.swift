import LedgerDomain
import Testing

@Suite("Order independence of App Store deliveries")
struct OrderIndependenceTests {
    /// A year of one subscription's notifications, in the order Apple signed them.
    static let inOrder: [LedgerEvent] = [
        .subscriptionStarted(
            SubscriptionStarted(
                transaction: tx(
                    "t0", otx: "s1", product: "basic", purchased: day(0), expires: day(30),
                    offer: Offer(type: .introductory)))),
        .linked(TransactionLink(appUserID: "u1", originalTransactionIDs: ["s1"], linkedAt: day(0, hours: 1), source: .appAccountToken)),
        .subscriptionRenewed(Renewal(transaction: tx("t1", otx: "s1", product: "basic", purchased: day(30), expires: day(60)))),
        .priceIncrease(PriceIncrease(subscription: ref("s1", product: "basic", signed: day(40)), consent: .pending)),
        .priceIncrease(PriceIncrease(subscription: ref("s1", product: "basic", signed: day(45)), consent: .accepted)),
        .renewalPreferenceChanged(
            RenewalPreferenceChange(
                subscription: ref("s1", product: "basic", signed: day(50)), kind: .downgrade,
                autoRenewProductID: "lite")),
        .billingFailed(BillingFailure(subscription: ref("s1", product: "basic", signed: day(60)), gracePeriodExpiresAt: day(66))),
        .billingRecovered(Renewal(transaction: tx("t2", otx: "s1", product: "lite", purchased: day(63), expires: day(93)))),
        .refunded(Refund(subscription: ref("s1", product: "lite", signed: day(70)), transactionID: "t2", refundDate: day(70))),
        .refundReversed(RefundReversed(subscription: ref("s1", product: "lite", signed: day(72)), transactionID: "t2")),
        .autoRenewChanged(AutoRenewChange(subscription: ref("s1", product: "lite", signed: day(80)), enabled: false)),
        .subscriptionExpired(Expiry(subscription: ref("s1", product: "lite", signed: day(93)), reason: .voluntary)),
        .subscriptionStarted(
            SubscriptionStarted(
                transaction: tx("t3", otx: "s1", product: "premium", purchased: day(120), expires: day(150)),
                isResubscribe: true)),
        .renewalExtended(RenewalExtension(subscription: ref("s1", product: "premium", signed: day(140)), newExpiresDate: day(155))),
        .purchaseConsumable(Purchase(transaction: tx("c1", product: "coins", user: "u1", group: nil, purchased: day(5)))),
        .consumed(Consumption(appUserID: "u1", productID: "coins", transactionID: "c1", originalTransactionID: "c1", consumedAt: day(6)))
    ]

    static let permutations: [[Int]] = [
        Array((0..<16).reversed()),
        [3, 15, 7, 0, 12, 9, 1, 14, 4, 11, 2, 8, 13, 6, 10, 5],
        [8, 9, 11, 10, 0, 2, 1, 4, 3, 6, 5, 7, 13, 12, 15, 14],
        [12, 0, 11, 1, 10, 2, 9, 3, 8, 4, 7, 5, 6, 13, 14, 15]
    ]

    @Test(arguments: permutations)
    func shuffledAndDuplicatedDeliveryConverges(_ permutation: [Int]) {
        let expected = AllProjections(record(Self.inOrder))
        let shuffled = permutation.map { Self.inOrder[$0] }
        let duplicated = shuffled + shuffled.prefix(5) + [Self.inOrder[0], Self.inOrder[7]]
        let actual = AllProjections(record(duplicated))
        #expect(actual == expected)

        let status = actual.subscriptions["s1"]
        #expect(status?.state == .active)
        #expect(status?.productID == "premium")
        #expect(status?.expiresAt == day(155))
        #expect(status?.ownerUserID == "u1")
        #expect(status?.priceIncrease?.value == .accepted)
        #expect(status?.usedIntroductoryOffer == true)
        #expect(status?.productsEverPurchased == ["basic", "lite", "premium"])
    }

    @Test func stateAtEachStepOfInOrderDelivery() {
        let events = record(Self.inOrder)
        let at = { (i: Int) in fold(SubscriptionStatusReducer.self, key: "s1", events: events, asOf: events[i].recordedAt) }
        #expect(at(6).state == .inGracePeriod)
        #expect(at(7).state == .active)
        #expect(at(8).state == .refunded)
        #expect(at(9).state == .active)
        #expect(at(11).state == .expired(.voluntary))
        #expect(at(5).nextProductID == "lite")
        #expect(at(7).nextProductID == nil)
    }

    @Test func staleFactsAreIgnored() {
        // The EXPIRED notification arrives after the resubscription: the later purchase wins.
        var log = Log()
        log.append(
            .subscriptionStarted(
                SubscriptionStarted(
                    transaction: tx("t3", otx: "s1", user: "u1", purchased: day(120), expires: day(150)),
                    isResubscribe: true)))
        log.append(.subscriptionExpired(Expiry(subscription: ref("s1", signed: day(93)), reason: .voluntary)))
        log.append(.subscriptionRenewed(Renewal(transaction: tx("t1", otx: "s1", purchased: day(30), expires: day(60), signed: day(130)))))
        let s = log.status("s1")
        #expect(s.state == .active)
        #expect(s.latestTransactionID == "t3")
        #expect(s.expiresAt == day(150))
    }
}
