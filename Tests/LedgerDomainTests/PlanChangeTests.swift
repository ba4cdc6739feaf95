import LedgerDomain
import Testing

@Suite("Upgrades, downgrades and crossgrades")
struct PlanChangeTests {
    func started() -> Log {
        var log = Log()
        log.append(
            .subscriptionStarted(
                SubscriptionStarted(
                    transaction: tx(
                        "t0", otx: "s1", product: "basic", user: "u1", purchased: day(0),
                        expires: day(30)))))
        return log
    }

    @Test func upgradeTakesEffectImmediately() {
        var log = started()
        log.append(
            .renewalPreferenceChanged(
                RenewalPreferenceChange(
                    subscription: ref("s1", product: "basic", signed: day(10)), kind: .upgrade, autoRenewProductID: "premium",
                    transaction: tx("t1", otx: "s1", product: "premium", purchased: day(10), expires: day(40)))))
        let s = log.status("s1")
        #expect(s.productID == "premium")
        #expect(s.latestTransactionID == "t1")
        #expect(s.nextProductID == nil)
        #expect(s.expiresAt == day(40))
        #expect(ProductsStatus.compute(log.user("u1"), at: day(11)) == ["basic": .inactive, "premium": .active])
    }

    @Test func downgradeAtNextRenewal() {
        var log = started()
        log.append(
            .renewalPreferenceChanged(
                RenewalPreferenceChange(
                    subscription: ref("s1", product: "basic", signed: day(10)), kind: .downgrade, autoRenewProductID: "lite")))
        var s = log.status("s1")
        #expect(s.productID == "basic")
        #expect(s.nextProductID == "lite")
        log.append(.subscriptionRenewed(Renewal(transaction: tx("t1", otx: "s1", product: "lite", purchased: day(30), expires: day(60)))))
        s = log.status("s1")
        #expect(s.productID == "lite")
        #expect(s.nextProductID == nil)
        #expect(s.productsEverPurchased == ["basic", "lite"])
    }

    @Test func cancelledDowngradeClearsPendingProduct() {
        var log = started()
        log.append(
            .renewalPreferenceChanged(
                RenewalPreferenceChange(
                    subscription: ref("s1", product: "basic", signed: day(10)), kind: .downgrade, autoRenewProductID: "lite")))
        log.append(
            .renewalPreferenceChanged(
                RenewalPreferenceChange(
                    subscription: ref("s1", product: "basic", signed: day(12)), kind: .downgradeCancelled, autoRenewProductID: "basic")))
        #expect(log.status("s1").nextProductID == nil)
    }

    @Test func crossgradeAtNextRenewal() {
        var log = started()
        log.append(
            .renewalPreferenceChanged(
                RenewalPreferenceChange(
                    subscription: ref("s1", product: "basic", signed: day(10)), kind: .crossgrade, autoRenewProductID: "basic-family")))
        #expect(log.status("s1").nextProductID == "basic-family")
        log.append(.subscriptionRenewed(Renewal(transaction: tx("t1", otx: "s1", product: "basic-family", purchased: day(30), expires: day(60)))))
        #expect(log.status("s1").productID == "basic-family")
        #expect(log.status("s1").nextProductID == nil)
    }
}
