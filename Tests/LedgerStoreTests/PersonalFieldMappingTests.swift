import LedgerDomain
import Testing
import UTCTime

/// `LedgerEvent.mappingPersonalFields` (docs/erasure.md, "Sealed fields"): every developer payload and every
/// notification's verbatim JSON is replaced, nothing else is, and the replacement maps back.
@Suite struct PersonalFieldMappingTests {
    static func events() -> [LedgerEvent] {
        var events: [LedgerEvent] = []
        for seed in 1...12 as ClosedRange<UInt64> {
            var builder = HistoryBuilder(app: "a", random: ReadModelRebuildTests.SeededGenerator(state: seed))
            builder.build()
            events += builder.writes.compactMap(\.event)
        }
        let at = Instant(epochMilliseconds: 1_767_225_600_000)
        var facts = TransactionFacts(productID: "coins", transactionID: "t1", originalTransactionID: "o1", purchaseDate: at, signedDate: at)
        facts.developerPayload = "token-of-carol"
        events.append(.purchaseConsumable(.init(transaction: facts)))
        events.append(
            .externalPurchase(
                ExternalPurchase(
                    appUserID: "carol", productID: "coins", productType: .consumable, paymentID: "ch_1", provider: "paylike",
                    purchasedAt: at, price: Money(milliunits: 990, currency: "USD"), developerPayload: "order of carol")))
        events.append(
            .appStoreNotification(
                AppStoreNotification(
                    notificationType: "DID_RENEW", notificationUUID: "n1", originalTransactionID: "o1",
                    rawJSON: #"{"signedTransactionInfo":"eyJ.carol.sig"}"#)))
        events.append(.appStoreNotification(AppStoreNotification(notificationType: "TEST", notificationUUID: "n2", rawJSON: "{}")))
        return events
    }

    @Test func everyPersonalFieldIsReplacedAndMapsBack() {
        var kinds = Set<PersonalField.Kind>()
        for event in Self.events() {
            let fields = event.personalFields
            let mapped = event.mappingPersonalFields { "sealed:" + $0.purchase + ":" + $0.value }
            #expect(mapped.personalFields.map(\.value) == fields.map { "sealed:" + $0.purchase + ":" + $0.value })
            #expect(mapped.mappingPersonalFields { String($0.value.dropFirst("sealed:\($0.purchase):".count)) } == event)
            // The field names the purchase whose key seals it, and nothing but the fields changed.
            for field in fields {
                kinds.insert(field.kind)
                #expect(event.originalTransactionIDs.contains(field.purchase) || field.kind == .signedPayloads)
            }
            if fields.isEmpty { #expect(mapped == event) }
        }
        #expect(kinds == Set(PersonalField.Kind.allCases))
        // A notification that names no purchase is not sealed (no user's key could seal it).
        #expect(Self.events().last?.personalFields.isEmpty == true)
    }
}
