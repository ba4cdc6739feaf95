import LedgerDomain
import Testing

@Suite("One-time purchases of each product type")
struct OneTimePurchaseTests {
    @Test func consumableIsUnconsumedUntilConsumed() {
        var log = Log()
        log.append(
            .purchaseConsumable(
                Purchase(
                    transaction: tx(
                        "c1", product: "coins100", user: "u1", group: nil, purchased: day(1),
                        payload: "level-3"))))
        let user = log.user("u1")
        #expect(UnconsumedPurchases.list(user).map(\.transactionID) == ["c1"])
        #expect(UnconsumedPurchases.list(user).first?.developerPayload == "level-3")
        #expect(ProductsStatus.compute(user, at: day(2)) == ["coins100": .active])
    }

    @Test func nonConsumableStaysActive() {
        var log = Log()
        log.append(.purchaseNonConsumable(Purchase(transaction: tx("n1", product: "lifetime", user: "u1", group: nil, purchased: day(1)))))
        let user = log.user("u1")
        #expect(ProductsStatus.compute(user, at: day(900)) == ["lifetime": .active])
        #expect(UnconsumedPurchases.list(user).isEmpty)
        let catalog = Catalog(entitlementsByProduct: ["lifetime": ["pro"]])
        #expect(entitlements(user, catalog: catalog, at: day(900))["pro"]?.isActive == true)
    }

    @Test func nonRenewingExpiresAtItsDate() {
        var log = Log()
        log.append(
            .purchaseNonRenewing(
                Purchase(
                    transaction: tx(
                        "r1", product: "season", user: "u1", group: nil, purchased: day(1),
                        expires: day(91)))))
        let user = log.user("u1")
        #expect(ProductsStatus.compute(user, at: day(90)) == ["season": .active])
        #expect(ProductsStatus.compute(user, at: day(91)) == ["season": .inactive])
    }

    @Test func autoRenewableStartIsActiveUntilExpiry() {
        var log = Log()
        log.append(.subscriptionStarted(SubscriptionStarted(transaction: tx("s1", user: "u1", purchased: day(1), expires: day(31)))))
        let s = log.status("s1")
        #expect(s.state == .active)
        #expect(s.expiresAt == day(31))
        #expect(s.autoRenew?.value == true)
        #expect(ProductsStatus.compute(log.user("u1"), at: day(30)) == ["monthly": .active])
        #expect(ProductsStatus.compute(log.user("u1"), at: day(32)) == ["monthly": .inactive])
        #expect(ActivatedSubscriptions.list(log.user("u1"), at: day(2)).map(\.originalTransactionID) == ["s1"])
    }

    @Test func externalCardPurchaseGrantsAccess() {
        var log = Log()
        log.append(
            .externalPurchase(
                ExternalPurchase(
                    appUserID: "u1", productID: "web-pro", productType: .nonRenewing, paymentID: "pay_1", provider: "paylike",
                    purchasedAt: day(1), expiresDate: day(31), price: Money(milliunits: 4_990_000, currency: "EUR"))))
        let user = log.user("u1")
        #expect(ProductsStatus.compute(user, at: day(5)) == ["web-pro": .active])
        #expect(user.purchases.first?.details?.source == .external(provider: "paylike"))
    }
}
