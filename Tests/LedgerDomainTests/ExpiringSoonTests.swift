import LedgerDomain
import Testing

@Suite("Expiring soon")
struct ExpiringSoonTests {
    @Test func listsOnlySubscriptionsThatWillNotRenewWithinTheWindow() {
        var log = Log()
        log.append(.subscriptionStarted(SubscriptionStarted(transaction: tx("renews", user: "u1", purchased: day(0), expires: day(30)))))
        log.append(.subscriptionStarted(SubscriptionStarted(transaction: tx("cancelled", user: "u2", purchased: day(0), expires: day(30)))))
        log.append(.autoRenewChanged(AutoRenewChange(subscription: ref("cancelled", signed: day(3)), enabled: false)))
        log.append(.subscriptionStarted(SubscriptionStarted(transaction: tx("later", user: "u3", purchased: day(20), expires: day(50)))))
        log.append(.autoRenewChanged(AutoRenewChange(subscription: ref("later", signed: day(21)), enabled: false)))
        log.append(.subscriptionStarted(SubscriptionStarted(transaction: tx("grace", user: "u4", purchased: day(-30), expires: day(0)))))
        log.append(.billingFailed(BillingFailure(subscription: ref("grace", signed: day(0)), gracePeriodExpiresAt: day(27))))
        let week: Int64 = 7 * 86_400_000_000
        let soon = ExpiringSoon.query(log.statuses.map(\.summary), at: day(24), windowMicroseconds: week)
        #expect(soon.map(\.originalTransactionID) == ["grace", "cancelled"])
        #expect(ExpiringSoon.query(log.statuses.map(\.summary), at: day(31), windowMicroseconds: week).isEmpty)
    }
}
