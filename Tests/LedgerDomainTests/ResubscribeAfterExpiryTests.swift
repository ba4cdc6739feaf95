import LedgerDomain
import Testing
import UTCTime

/// Apple signs and delivers notifications late: an `EXPIRED` about one paid period can be signed after the purchase
/// that started the next. A fact about an older period must never end a newer one, whatever the order in which
/// the facts arrive and however they are dated; and without any `EXPIRED`, an expiry in the past is judged by the
/// clock at read time.
@Suite("Resubscription after expiry, and expiry by the clock")
struct ResubscribeAfterExpiryTests {
    /// Bought day 0, renewed day 30 (to day 60), billing retry and recovery on day 60 (to day 90), auto-renew
    /// turned off, past its expiry on day 90; Apple's `EXPIRED`/`VOLUNTARY` about transaction t2 is signed at
    /// `expiredSigned`; the user buys again (t3, same original transaction) at `resubscribed`, for 30 days.
    func history(expiredSigned: Instant, resubscribed: Instant) -> [LedgerEvent] {
        [
            .subscriptionStarted(SubscriptionStarted(transaction: tx("t0", otx: "s1", user: "u1", purchased: day(0), expires: day(30)))),
            .subscriptionRenewed(Renewal(transaction: tx("t1", otx: "s1", purchased: day(30), expires: day(60)))),
            .billingFailed(BillingFailure(subscription: ref("s1", signed: day(60)), expiresDate: day(60))),
            .billingRecovered(Renewal(transaction: tx("t2", otx: "s1", purchased: day(61), expires: day(90)))),
            .autoRenewChanged(AutoRenewChange(subscription: ref("s1", signed: day(70)), enabled: false)),
            .subscriptionExpired(Expiry(subscription: ref("s1", signed: expiredSigned), reason: .voluntary, expiresDate: day(90))),
            .subscriptionStarted(
                SubscriptionStarted(
                    transaction: tx("t3", otx: "s1", user: "u1", purchased: resubscribed, expires: resubscribed.adding(days: 30)),
                    isResubscribe: true)),
            .autoRenewChanged(AutoRenewChange(subscription: ref("s1", signed: resubscribed), enabled: true))
        ]
    }

    /// Every arrival order of the last three facts (the older ones are settled), for each dating.
    @Test(arguments: [
        // The purchase half a second before the EXPIRED notice is signed (the race seen in production).
        (day(100), day(100).adding(microseconds: -500_000)),
        // The notice signed long after the purchase (a redelivery).
        (day(105), day(100)),
        // The notice signed before the purchase (the ordinary case).
        (day(91), day(100))
    ])
    func resubscriptionIsActiveUntilItsNewExpiry(expiredSigned: Instant, resubscribed: Instant) {
        let events = history(expiredSigned: expiredSigned, resubscribed: resubscribed)
        let settled = Array(events.prefix(5))
        let late = Array(events.suffix(3))
        for order in permutations(late) {
            var log = Log()
            log.append(settled + order)
            let s = log.status("s1")
            let now = resubscribed.adding(days: 1)
            #expect(s.state == .active, "order \(order.map(caseName))")
            #expect(s.state(at: now) == .active)
            #expect(s.isEntitled(at: now))
            #expect(s.expiresAt == resubscribed.adding(days: 30))
            #expect(s.latestTransactionID == "t3")
            #expect(ProductsStatus.compute(log.user("u1"), at: now) == ["monthly": .active])
            // The new period ends by the clock like any other.
            #expect(s.state(at: resubscribed.adding(days: 30)) == .expired(.lapsed))
        }
    }

    @Test func anExpiryAboutTheCurrentPeriodStillEndsIt() {
        var log = Log()
        log.append(history(expiredSigned: day(91), resubscribed: day(100)))
        log.append(.subscriptionExpired(Expiry(subscription: ref("s1", signed: day(131)), reason: .voluntary, expiresDate: day(130))))
        #expect(log.status("s1").state == .expired(.voluntary))
        #expect(!log.status("s1").isEntitled(at: day(120)))  // Apple said it ended: no access even if dated earlier
    }

    @Test func billingFailureAboutAnOlderPeriodDoesNotEndANewerOne() {
        var log = Log()
        log.append(.subscriptionStarted(SubscriptionStarted(transaction: tx("t0", otx: "s1", user: "u1", purchased: day(0), expires: day(30)))))
        log.append(.subscriptionRenewed(Renewal(transaction: tx("t1", otx: "s1", purchased: day(30), expires: day(60)))))
        // A failure about the period that ended on day 30, signed (late) after the renewal that followed it.
        log.append(.billingFailed(BillingFailure(subscription: ref("s1", signed: day(31)), expiresDate: day(30))))
        log.append(.gracePeriodExpired(GracePeriodExpired(subscription: ref("s1", signed: day(32)), expiresDate: day(30))))
        #expect(log.status("s1").state == .active)
        #expect(log.status("s1").isEntitled(at: day(45)))
    }

    @Test func pastItsExpiryWithoutAnyExpiredNotificationItIsNotActive() {
        var log = Log()
        log.append(.subscriptionStarted(SubscriptionStarted(transaction: tx("t0", otx: "s1", user: "u1", purchased: day(0), expires: day(30)))))
        let s = log.status("s1")
        #expect(s.state(at: day(29)) == .active)
        #expect(s.state(at: day(30)) == .expired(.lapsed))
        #expect(!s.isEntitled(at: day(30)))
        #expect(ProductsStatus.compute(log.user("u1"), at: day(31)) == ["monthly": .inactive])
        #expect(entitlements(log.user("u1"), catalog: Catalog(), at: day(31))["monthly"]?.isActive == false)
        // With auto-renew known to be off, the lapse is the user's choice.
        log.append(.autoRenewChanged(AutoRenewChange(subscription: ref("s1", signed: day(10)), enabled: false)))
        #expect(log.status("s1").state(at: day(31)) == .expired(.voluntary))
    }

    @Test func aGracePeriodPastItsEndIsBillingRetry() {
        var log = Log()
        log.append(.subscriptionStarted(SubscriptionStarted(transaction: tx("t0", otx: "s1", user: "u1", purchased: day(0), expires: day(30)))))
        log.append(.billingFailed(BillingFailure(subscription: ref("s1", signed: day(30)), gracePeriodExpiresAt: day(36), expiresDate: day(30))))
        let s = log.status("s1")
        #expect(s.state(at: day(35)) == .inGracePeriod)
        #expect(s.isEntitled(at: day(35)))
        #expect(s.state(at: day(36)) == .inBillingRetry)
        #expect(!s.isEntitled(at: day(36)))
    }
}

/// Every ordering of `items`.
func permutations<T>(_ items: [T]) -> [[T]] {
    guard items.count > 1 else { return [items] }
    return items.indices.flatMap { i -> [[T]] in
        var rest = items
        let head = rest.remove(at: i)
        return permutations(rest).map { [head] + $0 }
    }
}
