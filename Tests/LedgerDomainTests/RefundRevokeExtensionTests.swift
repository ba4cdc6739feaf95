import LedgerDomain
import Testing

@Suite("Refunds, family-sharing revocation, renewal extension")
struct RefundRevokeExtensionTests {
    func started(family: Bool = false) -> Log {
        var log = Log()
        log.append(
            .subscriptionStarted(
                SubscriptionStarted(
                    transaction: tx("t0", otx: "s1", user: "u1", purchased: day(0), expires: day(30), family: family))))
        return log
    }

    @Test func refundThenRefundReversed() {
        var log = started()
        log.append(.refunded(Refund(subscription: ref("s1", signed: day(5)), transactionID: "t0", refundDate: day(5), reason: "1")))
        #expect(log.status("s1").state == .refunded)
        #expect(ProductsStatus.compute(log.user("u1"), at: day(6)) == ["monthly": .inactive])
        log.append(.refundReversed(RefundReversed(subscription: ref("s1", signed: day(9)), transactionID: "t0")))
        #expect(log.status("s1").state == .active)
        #expect(ProductsStatus.compute(log.user("u1"), at: day(10)) == ["monthly": .active])
    }

    @Test func refundDeclinedChangesNothing() {
        var log = started()
        let before = log.status("s1")
        log.append(.consumptionRequested(ConsumptionRequest(subscription: ref("s1", signed: day(3)), transactionID: "t0")))
        log.append(.refundDeclined(RefundDeclined(subscription: ref("s1", signed: day(5)), transactionID: "t0")))
        #expect(log.status("s1") == before)
    }

    @Test func refundOfAConsumableRemovesItFromUnconsumed() {
        var log = Log()
        log.append(.purchaseConsumable(Purchase(transaction: tx("c1", product: "gems", user: "u1", group: nil, purchased: day(1)))))
        log.append(.refunded(Refund(subscription: ref("c1", product: "gems", signed: day(2)), transactionID: "c1", refundDate: day(2))))
        #expect(UnconsumedPurchases.list(log.user("u1")).isEmpty)
    }

    @Test func familySharingRevoke() {
        var log = started(family: true)
        #expect(log.status("s1").familyShared)
        log.append(.revoked(Revocation(subscription: ref("s1", signed: day(12)), transactionID: "t0", revocationDate: day(12))))
        #expect(log.status("s1").state == .revoked)
        #expect(!log.status("s1").isEntitled(at: day(13)))
        let catalog = Catalog(entitlementsByProduct: ["monthly": ["pro"]])
        #expect(entitlements(log.user("u1"), catalog: catalog, at: day(13))["pro"]?.isActive == false)
    }

    @Test func renewalExtensionMovesExpiry() {
        var log = started()
        log.append(.renewalExtended(RenewalExtension(subscription: ref("s1", signed: day(20)), newExpiresDate: day(37), extendedByDays: 7)))
        #expect(log.status("s1").expiresAt == day(37))
        #expect(log.status("s1").isEntitled(at: day(36)))
        // The next renewal supersedes the extension of the previous period.
        log.append(.subscriptionRenewed(Renewal(transaction: tx("t1", otx: "s1", purchased: day(37), expires: day(67)))))
        #expect(log.status("s1").expiresAt == day(67))
    }

    @Test func entitlementPrefersActiveGrant() {
        var log = started()
        log.append(.purchaseNonConsumable(Purchase(transaction: tx("n1", product: "lifetime", user: "u1", group: nil, purchased: day(40)))))
        let catalog = Catalog(entitlementsByProduct: ["monthly": ["pro"], "lifetime": ["pro", "extras"]])
        let e = entitlements(log.user("u1"), catalog: catalog, at: day(45))
        #expect(e["pro"] == Entitlement(entitlementID: "pro", isActive: true, expiresAt: nil, grantingProductID: "lifetime"))
        #expect(e["extras"]?.isActive == true)
    }
}
