import LedgerDomain
import Testing
import UTCTime

@Suite("Event encoding and versioned decoding")
struct EventCodecTests {
    @Test func samplesCoverEveryCase() {
        #expect(Set(sampleEvents().map(caseName)).count == 28)
    }

    @Test(arguments: sampleEvents())
    func roundTrip(_ event: LedgerEvent) throws {
        let stored = event.encoded()
        let decoded = try LedgerEvent.decode(type: stored.type, schemaVersion: stored.schemaVersion, payload: stored.payload)
        #expect(decoded == event)
        #expect(decoded.encoded() == stored)  // deterministic text
    }

    @Test func typeNamesAreDistinctPerCase() {
        var names: [String: String] = [:]
        for event in sampleEvents() {
            let type = event.encoded().type
            #expect(names[type] == nil || names[type] == caseName(event))
            names[type] = caseName(event)
        }
        #expect(names.count == 28)
    }

    @Test func payloadKeysAreSortedAndTimesAreIntegers() {
        let event = LedgerEvent.autoRenewChanged(
            AutoRenewChange(
                subscription: ref("o1", signed: Instant(epochMilliseconds: 1_700_000_000_123)),
                enabled: true))
        #expect(
            event.encoded().payload == #"{"enabled":true,"subscription":{"environment":"Production","originalTransactionID":"o1","#
                + #""productID":"monthly","signedDate":1700000000123000,"subscriptionGroupID":"g1"}}"#)
    }

    /// `identity.transferred` version 1, as written by the first release: one transaction per event.
    @Test func transferSchemaVersion1IsUpcast() throws {
        let v1 = #"{"fromUserID":"old","toUserID":"new","originalTransactionID":"o9","transferredAt":1767225600000000}"#
        let event = try LedgerEvent.decode(type: "identity.transferred", schemaVersion: 1, payload: v1)
        #expect(
            event
                == .transferred(
                    Transfer(
                        fromUserID: "old", toUserID: "new", originalTransactionIDs: ["o9"], transferredAt: epoch2026, policy: .transfer)))
        #expect(event.encoded().schemaVersion == 2)
    }

    /// `transaction.consumption_information_sent` version 1, as written for the retired V1 endpoint: its body is kept as it
    /// was, and the fields it never had (the v2 body, inputs, Apple's status) stay empty.
    @Test func consumptionInformationSentSchemaVersion1IsUpcast() throws {
        let v1 =
            #"{"consumptionStatus":3,"customerConsented":true,"deliveryStatus":0,"environment":"Sandbox","originalTransactionID":"o1","#
            + #""platform":1,"productID":"coins","requestSignedDate":1767225600000000,"sentAt":1767229200000000,"transactionID":"t1"}"#
        let event = try LedgerEvent.decode(type: "transaction.consumption_information_sent", schemaVersion: 1, payload: v1)
        #expect(
            event
                == .consumptionInformationSent(
                    ConsumptionInformationSent(
                        originalTransactionID: "o1", transactionID: "t1", productID: "coins", environment: .sandbox, requestSignedDate: epoch2026,
                        sentAt: Instant(microsecondsSinceEpoch: 1_767_229_200_000_000), answer: nil, inputs: nil, appleStatus: nil,
                        v1Body: ConsumptionInformationV1Body(consumptionStatus: 3, deliveryStatus: 0, platform: 1, customerConsented: true))))
        #expect(event.encoded().schemaVersion == 2)
        #expect(event.idempotencyKey == "consumption_information:t1")
        #expect(throws: EventDecodingError.unsupportedVersion(type: "transaction.consumption_information_sent", schemaVersion: 3)) {
            try LedgerEvent.decode(type: "transaction.consumption_information_sent", schemaVersion: 3, payload: v1)
        }
    }

    /// A version-1 purchase payload written before optional fields existed still decodes with defaults.
    @Test func minimalVersion1PurchaseDecodes() throws {
        let v1 = #"{"transaction":{"productID":"coins","transactionID":"1","originalTransactionID":"1","purchaseDate":5}}"#
        let event = try LedgerEvent.decode(type: "purchase.consumable", schemaVersion: 1, payload: v1)
        guard case .purchaseConsumable(let p) = event else {
            Issue.record("wrong case")
            return
        }
        #expect(p.transaction.environment == .production)
        #expect(p.transaction.signedDate == Instant(microsecondsSinceEpoch: 5))
        #expect(p.transaction.quantity == 1)
    }

    @Test func errorsAreTyped() {
        #expect(throws: EventDecodingError.unknownType("nope")) {
            try LedgerEvent.decode(type: "nope", schemaVersion: 1, payload: "{}")
        }
        #expect(throws: EventDecodingError.unsupportedVersion(type: "purchase.consumed", schemaVersion: 7)) {
            try LedgerEvent.decode(type: "purchase.consumed", schemaVersion: 7, payload: "{}")
        }
        #expect(throws: EventDecodingError.self) {
            try LedgerEvent.decode(type: "purchase.consumed", schemaVersion: 1, payload: "{")
        }
    }
}
