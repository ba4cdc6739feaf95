import LedgerDomain
import Testing

@Suite("Price increases and offers")
struct PriceAndOfferTests {
    func started(offer: Offer? = nil) -> Log {
        var log = Log()
        log.append(
            .subscriptionStarted(
                SubscriptionStarted(
                    transaction: tx(
                        "t0", otx: "s1", user: "u1", purchased: day(0), expires: day(30),
                        offer: offer))))
        return log
    }

    @Test func priceIncreasePendingThenAccepted() {
        var log = started()
        log.append(.priceIncrease(PriceIncrease(subscription: ref("s1", signed: day(5)), consent: .pending)))
        #expect(log.status("s1").priceIncrease?.value == .pending)
        log.append(.priceIncrease(PriceIncrease(subscription: ref("s1", signed: day(8)), consent: .accepted)))
        #expect(log.status("s1").priceIncrease?.value == .accepted)
        log.append(.subscriptionRenewed(Renewal(transaction: tx("t1", otx: "s1", purchased: day(30), expires: day(60), price: 12_990))))
        #expect(log.status("s1").state == .active)
        #expect(log.status("s1").latestTransaction?.value.price?.milliunits == 12_990)
    }

    @Test func priceIncreaseDeclinedThenExpired() {
        var log = started()
        log.append(.priceIncrease(PriceIncrease(subscription: ref("s1", signed: day(5)), consent: .pending)))
        log.append(.subscriptionExpired(Expiry(subscription: ref("s1", signed: day(30)), reason: .priceIncreaseDeclined)))
        #expect(log.status("s1").state == .expired(.priceIncreaseDeclined))
        #expect(!log.user("u1").hasActive(at: day(31)))
    }

    @Test func introductoryOfferMakesGroupIneligible() {
        let free = Offer(type: .introductory, paymentMode: "FREE_TRIAL")
        let log = started(offer: free)
        #expect(log.status("s1").offerInEffect == free)
        #expect(log.status("s1").usedIntroductoryOffer)
        #expect(!IntroOfferEligibility.isEligible(log.user("u1"), subscriptionGroupID: "g1"))
        #expect(IntroOfferEligibility.isEligible(log.user("u1"), subscriptionGroupID: "g2"))
        #expect(IntroOfferEligibility.isEligible(log.user("u2"), subscriptionGroupID: "g1"))
    }

    @Test func promotionalOfferOnRenewalThenFullPrice() {
        var log = started()
        let promo = Offer(type: .promotional, identifier: "save50", paymentMode: "PAY_AS_YOU_GO")
        log.append(.subscriptionRenewed(Renewal(transaction: tx("t1", otx: "s1", purchased: day(30), expires: day(60), offer: promo))))
        #expect(log.status("s1").offerInEffect == promo)
        log.append(.subscriptionRenewed(Renewal(transaction: tx("t2", otx: "s1", purchased: day(60), expires: day(90)))))
        #expect(log.status("s1").offerInEffect == nil)
    }

    @Test func offerCodeAndWinBackAreRecorded() {
        let code = Offer(type: .offerCode, identifier: "SPRING")
        let log = started(offer: code)
        #expect(log.status("s1").offerInEffect?.type == .offerCode)
        var winBack = log
        winBack.append(
            .subscriptionStarted(
                SubscriptionStarted(
                    transaction: tx("t9", otx: "s1", purchased: day(200), expires: day(230), offer: Offer(type: .winBack, identifier: "wb1")),
                    isResubscribe: true)))
        #expect(winBack.status("s1").offerInEffect?.type == .winBack)
    }
}

@Suite("Intro-offer eligibility by group")
struct IntroOfferEligibilityByGroupTests {
    @Test func catalogGroupsCountTheUsersHistoryUnderTheAppsOwnNames() {
        var log = Log()
        log.append(
            .subscriptionStarted(
                SubscriptionStarted(
                    transaction: tx(
                        "t0", otx: "s1", user: "u1", group: "21000001",
                        purchased: day(0), expires: day(30)))))
        let groups = ["monthly": "main", "annual": "other"]
        let byGroup = IntroOfferEligibility.byGroup(log.user("u1"), catalogGroups: groups)
        #expect(byGroup.map(\.group) == ["21000001", "main", "other"])
        #expect(byGroup.map(\.eligible) == [false, false, true])
        #expect(IntroOfferEligibility.byGroup(log.user("u2"), catalogGroups: groups).allSatisfy { $0.eligible })
    }
}
