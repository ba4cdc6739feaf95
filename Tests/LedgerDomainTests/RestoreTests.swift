import LedgerDomain
import Testing

@Suite("Restore under each transfer policy")
struct RestoreTests {
    /// u1 owns an active subscription s1 and an expired s2; s3 has no owner yet (notification only).
    func history() -> Log {
        var log = Log()
        log.append(.subscriptionStarted(SubscriptionStarted(transaction: tx("s1", user: "u1", purchased: day(0), expires: day(30)))))
        log.append(
            .subscriptionStarted(
                SubscriptionStarted(
                    transaction: tx(
                        "s2", product: "yearly", user: "u1", group: "g2", purchased: day(-400),
                        expires: day(-35)))))
        log.append(
            .subscriptionStarted(
                SubscriptionStarted(
                    transaction: tx(
                        "s3", product: "extra", group: "g3", purchased: day(1),
                        expires: day(31)))))
        return log
    }

    func restore(_ log: Log, _ ids: [String], _ policy: TransferPolicy) -> Result<[LedgerEvent], RestoreRefusal> {
        RestoreRules.restore(
            originalTransactionIDs: ids, to: "u2", policy: policy, subscriptions: log.statuses.map(\.summary),
            purchases: log.purchases.map(\.summary), at: day(10))
    }

    @Test func transferMovesEverythingAndLinksUnowned() throws {
        var log = history()
        let events = try restore(log, ["s1", "s3"], .transfer).get()
        #expect(
            events == [
                .linked(TransactionLink(appUserID: "u2", originalTransactionIDs: ["s3"], linkedAt: day(10), source: .restore)),
                .transferred(Transfer(fromUserID: "u1", toUserID: "u2", originalTransactionIDs: ["s1"], transferredAt: day(10), policy: .transfer))
            ])
        log.append(events)
        #expect(ProductsStatus.compute(log.user("u2"), at: day(11)) == ["monthly": .active, "extra": .active])
        #expect(ProductsStatus.compute(log.user("u1"), at: day(11)) == ["yearly": .inactive])
    }

    @Test func transferIfNoActiveRefusesWhenOldOwnerIsActive() {
        let log = history()
        #expect(
            restore(log, ["s1"], .transferIfNoActive)
                == .failure(
                    RestoreRefusal(
                        policy: .transferIfNoActive, conflicts: [.init(originalTransactionID: "s1", ownerUserID: "u1")])))
    }

    @Test func transferIfNoActiveTransfersWhenOldOwnerHasNothingActive() throws {
        var log = history()
        log.append(.subscriptionExpired(Expiry(subscription: ref("s1", signed: day(5)), reason: .voluntary)))
        let events = try restore(log, ["s1", "s2"], .transferIfNoActive).get()
        #expect(
            events == [
                .transferred(
                    Transfer(
                        fromUserID: "u1", toUserID: "u2", originalTransactionIDs: ["s1", "s2"], transferredAt: day(10), policy: .transferIfNoActive))
            ])
    }

    @Test func keepAndRefuseRefusesAndLinksNothing() {
        let log = history()
        let result = restore(log, ["s3", "s2"], .keepAndRefuse)
        guard case .failure(let refusal) = result else {
            Issue.record("expected a refusal")
            return
        }
        #expect(refusal.conflicts == [.init(originalTransactionID: "s2", ownerUserID: "u1")])
        #expect(refusal.message.contains("s2"))
    }

    @Test func restoringOwnPurchasesRecordsNothing() throws {
        let log = history()
        let events = try RestoreRules.restore(
            originalTransactionIDs: ["s1"], to: "u1", policy: .keepAndRefuse, subscriptions: log.statuses.map(\.summary),
            purchases: log.purchases.map(\.summary), at: day(10)
        ).get()
        #expect(events.isEmpty)
    }

    @Test func lateLinkAttachesEarlierNotifications() {
        var log = history()
        log.append(
            .subscriptionRenewed(
                Renewal(
                    transaction: tx(
                        "s3b", otx: "s3", product: "extra", group: "g3", purchased: day(31),
                        expires: day(61)))))
        log.append(.linked(TransactionLink(appUserID: "u3", originalTransactionIDs: ["s3"], linkedAt: day(40), source: .appAccountToken)))
        #expect(ActivatedSubscriptions.list(log.user("u3"), at: day(41)).map(\.latestTransactionID) == ["s3b"])
    }
}

@Suite("User snapshot")
struct UserSnapshotTests {
    @Test func snapshotAsOfBeforeAndAfterATransfer() {
        var log = Log()
        log.append(.subscriptionStarted(SubscriptionStarted(transaction: tx("s1", user: "u1", purchased: day(0), expires: day(30)))))
        log.append(.purchaseConsumable(Purchase(transaction: tx("c1", product: "coins", user: "u1", group: nil, purchased: day(1), payload: "p"))))
        let beforeTransfer = log.events.last?.recordedAt
        log.append(.transferred(Transfer(fromUserID: "u1", toUserID: "u2", originalTransactionIDs: ["s1"], transferredAt: day(2), policy: .transfer)))
        let catalog = Catalog(entitlementsByProduct: ["monthly": ["pro"]])
        let then = UserSnapshot(appUserID: "u1", events: log.events, asOf: beforeTransfer, catalog: catalog, at: day(3))
        #expect(then.productsStatus == ["monthly": .active, "coins": .active])
        #expect(then.entitlements["pro"]?.isActive == true)
        #expect(then.activatedSubscriptions == ["s1"])
        #expect(then.introOfferIneligibleGroups == ["g1"])
        #expect(then.unconsumedPurchases.map(\.transactionID) == ["c1"])
        let now = UserSnapshot(appUserID: "u1", events: log.events, asOf: nil, catalog: catalog, at: day(3))
        #expect(now.productsStatus == ["coins": .active])
        #expect(now.entitlements["pro"] == nil)
        #expect(UserSnapshot(appUserID: "u2", events: log.events, asOf: nil, catalog: catalog, at: day(3)).activatedSubscriptions == ["s1"])
    }
}
