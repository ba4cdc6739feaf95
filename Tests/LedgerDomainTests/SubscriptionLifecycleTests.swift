import LedgerDomain
import Testing
import UTCTime

@Suite("Subscription lifecycle, billing retry, grace, cancel")
struct SubscriptionLifecycleTests {
    /// Started on day 0, renewed on days 30 and 60.
    func renewedTwice() -> Log {
        var log = Log()
        log.append(.subscriptionStarted(SubscriptionStarted(transaction: tx("t0", otx: "s1", user: "u1", purchased: day(0), expires: day(30)))))
        log.append(.subscriptionRenewed(Renewal(transaction: tx("t1", otx: "s1", purchased: day(30), expires: day(60)))))
        log.append(.subscriptionRenewed(Renewal(transaction: tx("t2", otx: "s1", purchased: day(60), expires: day(90)))))
        return log
    }

    @Test func lifecycleWithRenewals() {
        let log = renewedTwice()
        let s = log.status("s1")
        #expect(s.state == .active)
        #expect(s.latestTransactionID == "t2")
        #expect(s.expiresAt == day(90))
        #expect(s.ownerUserID == "u1")  // renewals carry no user; ownership came from the first purchase
        #expect(s.activatedAt == day(0))
        #expect(log.user("u1").hasActive(at: day(89)))
    }

    @Test func billingRetryWithGraceThenRecovery() {
        var log = renewedTwice()
        log.append(.billingFailed(BillingFailure(subscription: ref("s1", signed: day(90)), gracePeriodExpiresAt: day(96))))
        var s = log.status("s1")
        #expect(s.state == .inGracePeriod)
        #expect(s.graceExpiresAt == day(96))
        #expect(s.isEntitled(at: day(95)))
        #expect(!s.isEntitled(at: day(96)))
        log.append(.billingRecovered(Renewal(transaction: tx("t3", otx: "s1", purchased: day(93), expires: day(123)))))
        s = log.status("s1")
        #expect(s.state == .active)
        #expect(s.graceExpiresAt == nil)
        #expect(s.expiresAt == day(123))
    }

    @Test func billingRetryWithoutGraceThenFinalExpiry() {
        var log = renewedTwice()
        log.append(.billingFailed(BillingFailure(subscription: ref("s1", signed: day(90)))))
        #expect(log.status("s1").state == .inBillingRetry)
        #expect(!log.status("s1").isEntitled(at: day(90, hours: 1)))
        log.append(.subscriptionExpired(Expiry(subscription: ref("s1", signed: day(150)), reason: .billingError)))
        #expect(log.status("s1").state == .expired(.billingError))
        #expect(ProductsStatus.compute(log.user("u1"), at: day(151)) == ["monthly": .inactive])
    }

    @Test func graceExpiresIntoRetryThenExpiry() {
        var log = renewedTwice()
        log.append(.billingFailed(BillingFailure(subscription: ref("s1", signed: day(90)), gracePeriodExpiresAt: day(96))))
        log.append(.gracePeriodExpired(GracePeriodExpired(subscription: ref("s1", signed: day(96)))))
        #expect(log.status("s1").state == .inBillingRetry)
        log.append(.subscriptionExpired(Expiry(subscription: ref("s1", signed: day(150)), reason: .billingError)))
        #expect(log.status("s1").state == .expired(.billingError))
    }

    @Test func voluntaryCancelThenResubscribe() {
        var log = renewedTwice()
        log.append(.autoRenewChanged(AutoRenewChange(subscription: ref("s1", signed: day(70)), enabled: false)))
        #expect(log.status("s1").autoRenew?.value == false)
        #expect(log.status("s1").isEntitled(at: day(89)))
        log.append(.subscriptionExpired(Expiry(subscription: ref("s1", signed: day(90)), reason: .voluntary, expiresDate: day(90))))
        #expect(log.status("s1").state == .expired(.voluntary))
        #expect(!log.user("u1").hasActive(at: day(91)))
        log.append(
            .subscriptionStarted(
                SubscriptionStarted(
                    transaction: tx("t3", otx: "s1", purchased: day(120), expires: day(150)), isResubscribe: true)))
        let s = log.status("s1")
        #expect(s.state == .active)
        #expect(s.autoRenew?.value == true)
        #expect(s.expiresAt == day(150))
        #expect(s.ownerUserID == "u1")
    }

    @Test func autoRenewBackOnAfterCancel() {
        var log = renewedTwice()
        log.append(.autoRenewChanged(AutoRenewChange(subscription: ref("s1", signed: day(70)), enabled: false)))
        log.append(.autoRenewChanged(AutoRenewChange(subscription: ref("s1", signed: day(71)), enabled: true)))
        #expect(log.status("s1").autoRenew?.value == true)
    }

    @Test func asOfUsesRecordedTime() {
        let log = renewedTwice()
        let firstRecorded = log.events[0].recordedAt
        #expect(log.status("s1", asOf: firstRecorded).latestTransactionID == "t0")
        #expect(log.status("s1", asOf: firstRecorded.adding(microseconds: -1)) == SubscriptionStatus(originalTransactionID: "s1"))
    }
}
