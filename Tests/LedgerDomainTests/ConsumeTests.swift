import LedgerDomain
import Testing

@Suite("Consume and the unconsumed list")
struct ConsumeTests {
    func history() -> Log {
        var log = Log()
        log.append(.purchaseConsumable(Purchase(transaction: tx("c1", product: "coins", user: "u1", group: nil, purchased: day(1), payload: "p1"))))
        log.append(.purchaseConsumable(Purchase(transaction: tx("c2", product: "coins", user: "u1", group: nil, purchased: day(2), payload: "p2"))))
        log.append(.purchaseNonConsumable(Purchase(transaction: tx("n1", product: "lifetime", user: "u1", group: nil, purchased: day(3)))))
        return log
    }

    @Test func consumeRemovesFromUnconsumedList() throws {
        var log = history()
        #expect(UnconsumedPurchases.list(log.user("u1")).map(\.developerPayload) == ["p1", "p2"])
        let event = try ConsumptionRules.consume(log.purchase("c1"), originalTransactionID: "c1", by: "u1", at: day(4)).get()
        log.append(event)
        #expect(UnconsumedPurchases.list(log.user("u1")).map(\.transactionID) == ["c2"])
        #expect(
            ConsumptionRules.consume(log.purchase("c1"), originalTransactionID: "c1", by: "u1", at: day(5))
                == .failure(.alreadyConsumed(originalTransactionID: "c1", consumedAt: day(4))))
    }

    @Test func consumeErrors() {
        var log = history()
        log.append(.refunded(Refund(subscription: ref("c2", product: "coins", signed: day(5)), transactionID: "c2", refundDate: day(5))))
        #expect(
            ConsumptionRules.consume(log.purchase("c2"), originalTransactionID: "c2", by: "u1", at: day(6))
                == .failure(.refunded(originalTransactionID: "c2")))
        #expect(
            ConsumptionRules.consume(log.purchase("n1"), originalTransactionID: "n1", by: "u1", at: day(6))
                == .failure(.notConsumable(originalTransactionID: "n1", productType: .nonConsumable)))
        #expect(
            ConsumptionRules.consume(log.purchase("c1"), originalTransactionID: "c1", by: "u2", at: day(6))
                == .failure(.belongsToAnotherUser(originalTransactionID: "c1")))
        #expect(
            ConsumptionRules.consume(log.purchase("zz"), originalTransactionID: "zz", by: "u1", at: day(6))
                == .failure(.unknownPurchase(originalTransactionID: "zz")))
        #expect(
            ConsumptionRules.consume(nil, originalTransactionID: "zz", by: "u1", at: day(6))
                == .failure(.unknownPurchase(originalTransactionID: "zz")))
    }
}
