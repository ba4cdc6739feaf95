import LedgerDomain
import Testing
import UTCTime

/// The answer to Apple's consumption request, decided from the log: consent first, then the percentage, the delivery
/// status and the refund preference of each policy.
@Suite("Consumption answers")
struct ConsumptionAnswerRulesTests {
    static let yes = ConsumptionConsent(appUserID: "u1", consented: true, source: .app, recordedAt: day(1))

    func inputs(
        _ type: ProductType?, user: String? = "u1", consumed: Instant? = nil, period: (Instant, Instant)? = nil,
        requested: Instant = day(10), consent: ConsumptionConsent? = yes, policy: RefundPolicy = .byConsumption,
        sample: Bool = false
    ) -> ConsumptionInputs {
        ConsumptionInputs(
            appUserID: user, productType: type, consumedAt: consumed, periodStart: period?.0, periodEnd: period?.1,
            requestedAt: requested, consent: consent, refundPolicy: policy, sampleContentProvided: sample)
    }

    // MARK: The default policy's branches

    @Test func aConsumableConsumedIsFullyConsumedAndDeliveredSoDeclined() {
        #expect(
            ConsumptionAnswerRules.decide(inputs(.consumable, consumed: day(2)))
                == .send(
                    ConsumptionAnswer(
                        consumptionPercentage: 100_000, deliveryStatus: .delivered, refundPreference: .decline, sampleContentProvided: false)))
    }

    @Test func aSubscriptionPartlyUsedIsProrated() {
        // A third of a 30-day period elapsed when Apple asked.
        let answer = ConsumptionAnswerRules.decide(inputs(.autoRenewable, period: (day(0), day(30)), requested: day(10), sample: true))
        #expect(
            answer
                == .send(
                    ConsumptionAnswer(
                        consumptionPercentage: 33_333, deliveryStatus: .delivered, refundPreference: .grantProrated, sampleContentProvided: true)))
    }

    @Test func aConsumableNotConsumedIsUndeliveredSoGrantedInFull() {
        #expect(
            ConsumptionAnswerRules.decide(inputs(.consumable))
                == .send(
                    ConsumptionAnswer(
                        consumptionPercentage: 0, deliveryStatus: .undeliveredOther, refundPreference: .grantFull, sampleContentProvided: false)))
    }

    @Test func theOtherCasesOfTheDefaultPolicy() {
        // A non-consumable is a permanent unlock: used in full once delivered.
        #expect(
            ConsumptionAnswerRules.decide(inputs(.nonConsumable))
                == .send(
                    ConsumptionAnswer(
                        consumptionPercentage: 100_000, deliveryStatus: .delivered, refundPreference: .decline, sampleContentProvided: false)))
        // A period that had not begun when Apple asked: nothing used, granted in full.
        #expect(
            ConsumptionAnswerRules.decide(inputs(.nonRenewing, period: (day(11), day(41)), requested: day(10)))
                == .send(
                    ConsumptionAnswer(
                        consumptionPercentage: 0, deliveryStatus: .delivered, refundPreference: .grantFull, sampleContentProvided: false)))
        // A period over: fully used.
        #expect(
            ConsumptionAnswerRules.decide(inputs(.autoRenewable, period: (day(0), day(7)), requested: day(10)))
                == .send(
                    ConsumptionAnswer(
                        consumptionPercentage: 100_000, deliveryStatus: .delivered, refundPreference: .decline, sampleContentProvided: false)))
        // The log lacks the requested transaction's period: no measure of use, no preference.
        #expect(
            ConsumptionAnswerRules.decide(inputs(.autoRenewable))
                == .send(
                    ConsumptionAnswer(
                        consumptionPercentage: nil, deliveryStatus: .delivered, refundPreference: nil, sampleContentProvided: false)))
    }

    // MARK: The other policies

    @Test(arguments: [(RefundPolicy.alwaysGrant, RefundPreference?.some(.grantFull)), (.alwaysDecline, .decline), (.noPreference, nil)])
    func theOtherPoliciesIgnoreTheConsumption(policy: RefundPolicy, preference: RefundPreference?) {
        for facts in [
            inputs(.consumable, policy: policy), inputs(.consumable, consumed: day(2), policy: policy),
            inputs(.autoRenewable, period: (day(0), day(30)), policy: policy)
        ] {
            guard case .send(let answer) = ConsumptionAnswerRules.decide(facts) else {
                Issue.record("\(policy) withheld an answer")
                continue
            }
            #expect(answer.refundPreference == preference)
            #expect(answer.consumptionPercentage == ConsumptionAnswerRules.consumptionPercentage(facts))  // still declared
        }
    }

    @Test func theDefaultPolicyTable() {
        let table: [(DeliveryStatus, Int?, RefundPreference?)] = [
            (.undeliveredServerOutage, 100_000, .grantFull), (.undeliveredOther, nil, .grantFull), (.delivered, 0, .grantFull),
            (.delivered, 1, .grantProrated), (.delivered, 99_999, .grantProrated), (.delivered, 100_000, .decline), (.delivered, nil, nil)
        ]
        for (delivery, percentage, expected) in table {
            #expect(
                ConsumptionAnswerRules.refundPreference(.byConsumption, delivery: delivery, percentage: percentage) == expected,
                "\(delivery) \(String(describing: percentage))")
        }
    }

    // MARK: Nothing is sent without the user's consent

    @Test func withoutConsentNothingIsSentAndTheReasonIsSaid() {
        #expect(ConsumptionAnswerRules.decide(inputs(.consumable, consent: nil)) == .withhold(.noConsentRecorded))
        let no = ConsumptionConsent(appUserID: "u1", consented: false, source: .backend, recordedAt: day(3))
        #expect(ConsumptionAnswerRules.decide(inputs(.consumable, consent: no)) == .withhold(.consentWithdrawn))
        #expect(ConsumptionAnswerRules.decide(inputs(.consumable, user: nil, consent: nil)) == .withhold(.noUser))
        #expect(ConsumptionAnswerRules.decide(inputs(nil, consent: Self.yes)) == .withhold(.unknownPurchase))
    }

    @Test func theLatestConsentHolds() {
        let events: [LedgerEvent] = [
            .consumptionConsentRecorded(Self.yes),
            .consumptionConsentRecorded(ConsumptionConsent(appUserID: "u1", consented: false, source: .app, recordedAt: day(2)))
        ]
        #expect(ConsumptionAnswerRules.latestConsent(events)?.consented == false)
        #expect(ConsumptionAnswerRules.latestConsent(Array(events.prefix(1)))?.consented == true)
        #expect(ConsumptionAnswerRules.latestConsent([]) == nil)
    }

    // MARK: Facts from the purchase's stream

    @Test func purchaseFactsComeFromTheStream() {
        let coins: [LedgerEvent] = [
            .purchaseConsumable(Purchase(transaction: tx("c1", product: "coins", group: nil, purchased: day(1)))),
            .linked(TransactionLink(appUserID: "u7", originalTransactionIDs: ["c1"], linkedAt: day(2), source: .restore)),
            .consumed(Consumption(appUserID: "u7", productID: "coins", transactionID: "c1", originalTransactionID: "c1", consumedAt: day(3))),
            .consumptionRequested(ConsumptionRequest(subscription: ref("c1", product: "coins", signed: day(4)), transactionID: "c1"))
        ]
        let facts = ConsumptionAnswerRules.purchaseFacts(coins, transactionID: "c1")
        #expect(facts.appUserID == "u7" && facts.productType == .consumable && facts.consumedAt == day(3))

        let subscription: [LedgerEvent] = [
            .subscriptionStarted(SubscriptionStarted(transaction: tx("s1", user: "u1", purchased: day(0), expires: day(30)))),
            .subscriptionRenewed(Renewal(transaction: tx("s2", otx: "s1", purchased: day(30), expires: day(60))))
        ]
        let renewal = ConsumptionAnswerRules.purchaseFacts(subscription, transactionID: "s2")
        #expect(renewal.appUserID == "u1" && renewal.productType == .autoRenewable && renewal.consumedAt == nil)
        #expect(renewal.periodStart == day(30) && renewal.periodEnd == day(60))
        #expect(ConsumptionAnswerRules.purchaseFacts(subscription, transactionID: "s9").periodStart == nil)

        // Only the request: the log holds no purchase, and the request's token names a user (a weak claim).
        let requestOnly: [LedgerEvent] = [
            .consumptionRequested(ConsumptionRequest(subscription: ref("x1", signed: day(4), user: "u3"), transactionID: "x1"))
        ]
        let unknown = ConsumptionAnswerRules.purchaseFacts(requestOnly, transactionID: "x1")
        #expect(unknown.productType == nil && unknown.appUserID == "u3")
    }
}
