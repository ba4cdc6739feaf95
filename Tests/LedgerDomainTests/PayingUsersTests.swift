import LedgerDomain
import Testing
import UTCTime

@Suite("Monthly paying users")
struct PayingUsersTests {
    static let nov = Instant(epochMilliseconds: 1_793_491_200_000)  // 2026-11-01T00:00:00Z

    func count(_ log: Log, _ month: CalendarMonth) -> Int {
        let states = Array(foldAll(PayingUsersReducer.self, events: log.events, asOf: nil).values)
        return PayingUsersReducer.usage(["app": states])[month.description]?["app"] ?? 0
    }

    @Test func countsDistinctProductionPayersPerUTCMonth() {
        let nov = Self.nov
        var log = Log()
        log.append(.subscriptionStarted(SubscriptionStarted(transaction: tx("a", user: "u1", purchased: nov))))
        log.append(.purchaseConsumable(Purchase(transaction: tx("b", user: "u1", group: nil, purchased: nov.adding(days: 2)))))
        log.append(.purchaseConsumable(Purchase(transaction: tx("c", user: "u2", group: nil, env: .sandbox, purchased: nov.adding(days: 2)))))
        log.append(.purchaseConsumable(Purchase(transaction: tx("d", user: "u3", group: nil, env: .xcode, purchased: nov))))
        log.append(.purchaseConsumable(Purchase(transaction: tx("e", user: "u4", group: nil, purchased: nov.adding(microseconds: -1)))))
        log.append(.refunded(Refund(subscription: ref("a", signed: nov.adding(days: 3)), transactionID: "a", refundDate: nov.adding(days: 3))))
        #expect(count(log, CalendarMonth(year: 2026, month: 11)) == 1)
        #expect(count(log, CalendarMonth(year: 2026, month: 10)) == 1)
        #expect(CalendarMonth(containing: nov).description == "2026-11")
        #expect(CalendarMonth(containing: nov.adding(microseconds: -1)).description == "2026-10")
    }

    @Test func renewalsWithoutUserCountForTheOwnerOnce() {
        let nov = Self.nov
        var log = Log()
        // Two subscriptions that notifications know only by original transaction id, renewed in November.
        log.append(.subscriptionRenewed(Renewal(transaction: tx("r1", otx: "s1", purchased: nov.adding(days: 1)))))
        log.append(.subscriptionRenewed(Renewal(transaction: tx("r2", otx: "s2", group: "g2", purchased: nov.adding(days: 5)))))
        #expect(count(log, CalendarMonth(year: 2026, month: 11)) == 2)
        // Both turn out to be the same user's: one paying user.
        log.append(.linked(TransactionLink(appUserID: "u1", originalTransactionIDs: ["s1", "s2"], linkedAt: nov.adding(days: 9), source: .restore)))
        #expect(count(log, CalendarMonth(year: 2026, month: 11)) == 1)
    }
}

@Suite struct CalendarMonthTests {
    @Test func monthsParseAndPrintAsYYYYMM() {
        #expect(CalendarMonth(parsing: "2026-03") == CalendarMonth(year: 2026, month: 3))
        #expect(CalendarMonth(year: 245, month: 2).description == "0245-02")
        #expect(CalendarMonth(parsing: "0245-02")?.description == "0245-02")
        for bad in ["2026-13", "2026-00", "2026-3", "26-03", "2026-03-01", "", "２０２６-03", "abcd-ef"] {
            #expect(CalendarMonth(parsing: bad) == nil, "\(bad)")
        }
    }
}
