import Foundation
@testable import LedgerDomain
import Testing
import UTCTime

/// The fast reader of common payloads must read exactly what `JSONDecoder` reads, or leave the payload to it.
@Suite struct TransactionPayloadReaderTests {
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Mostly plain text (the fast path), some that JSON must escape (the general path).
    static let texts = [
        "a", "user-1", "é日本", "", "0", "emoji 🎉", "com.example.pro", "1000000123", "P1M", "USD", "x y", "-",
        "with \"quotes\"", "back\\slash", "tab\there"
    ]

    static func facts(_ random: inout SplitMix) -> TransactionFacts {
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { Bool.random(using: &random) ? value() : nil }
        func text() -> String { texts.randomElement(using: &random)! }
        func instant() -> Instant {
            Instant(microsecondsSinceEpoch: Int64.random(in: -5_000_000_000_000_000...5_000_000_000_000_000, using: &random))
        }
        func money() -> Money { Money(milliunits: Int64.random(in: Int64.min...Int64.max, using: &random), currency: text()) }
        return TransactionFacts(
            appUserID: maybe(text()), productID: text(), transactionID: text(), originalTransactionID: text(),
            subscriptionGroupID: maybe(text()),
            environment: [.production, .sandbox, StoreEnvironment(rawValue: text())].randomElement(using: &random)!,
            purchaseDate: instant(), originalPurchaseDate: maybe(instant()), expiresDate: maybe(instant()), signedDate: instant(),
            price: maybe(money()),
            offer: maybe(
                Offer(
                    type: OfferType.allCases.randomElement(using: &random)!, identifier: maybe(text()), paymentMode: maybe(text()),
                    period: maybe(text()))),
            familyShared: Bool.random(using: &random), developerPayload: maybe(text()), quantity: Int.random(in: -3...1_000, using: &random),
            storefront: maybe(text()), webOrderLineItemID: maybe(text()), appTransactionID: maybe(text()), billingPlanType: maybe(text()),
            commitment: maybe(
                Commitment(
                    billingPeriodNumber: maybe(Int.random(in: 0...12, using: &random)),
                    totalBillingPeriods: maybe(Int.random(in: 0...12, using: &random)), expiresAt: maybe(instant()),
                    priceAfter: maybe(money()))))
    }

    static func event(_ random: inout SplitMix) -> LedgerEvent {
        let t = facts(&random)
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return .subscriptionStarted(SubscriptionStarted(transaction: t, isResubscribe: Bool.random(using: &random)))
        case 1: return .subscriptionRenewed(Renewal(transaction: t))
        case 2: return .billingRecovered(Renewal(transaction: t))
        case 3: return .purchaseConsumable(Purchase(transaction: t))
        case 4: return .purchaseNonConsumable(Purchase(transaction: t))
        default: return .purchaseNonRenewing(Purchase(transaction: t))
        }
    }

    /// The payload as PostgreSQL's `jsonb` prints it: a space after every `:` and `,`, keys in another order.
    static func reformatted(_ payload: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(payload.utf8))
        let compact = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes]), as: UTF8.self)
        var out = ""
        var inString = false, escaped = false
        for character in compact {
            out.append(character)
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == ":" || character == "," {
                out.append(" ")
            }
        }
        return out
    }

    @Test(arguments: 1...8 as ClosedRange<UInt64>)
    func readsWhatTheGeneralDecoderReads(seed: UInt64) throws {
        var random = SplitMix(state: seed)
        var fast = 0
        for _ in 0..<300 {
            let event = Self.event(&random)
            let encoded = event.encoded()
            for payload in [encoded.payload, try Self.reformatted(encoded.payload)] {
                let general = try LedgerEvent.decodeGenerally(type: encoded.type, schemaVersion: 1, payload: payload)
                #expect(general == event)
                if let read = LedgerEvent.readCommon(type: encoded.type, payload: payload) {
                    fast += 1
                    #expect(read == general, "\(payload)")
                }
                #expect(try LedgerEvent.decode(type: encoded.type, schemaVersion: 1, payload: payload) == event)
            }
        }
        #expect(fast > 50)  // many payloads take the fast path (those with escapes do not)
    }

    @Test func leavesWhatItDoesNotUnderstandToTheGeneralDecoder() throws {
        let base = #"{"transaction":{"productID":"p","transactionID":"t","originalTransactionID":"o","purchaseDate":1}"#
        #expect(LedgerEvent.readCommon(type: "subscription.renewed", payload: base + "}") != nil)
        for payload in [
            base + #","unknown":1}"#,  // a key it does not know
            #"{"transaction":{"productID":"p\u0041","transactionID":"t","originalTransactionID":"o","purchaseDate":1}}"#,  // an escape
            #"{"transaction":{"productID":"p","transactionID":"t","originalTransactionID":"o","purchaseDate":1.0}}"#,  // a fraction
            #"{"transaction":{"productID":"p","transactionID":"t","originalTransactionID":"o","purchaseDate":99999999999999999999}}"#,
            #"{"transaction":{"productID":"p","transactionID":"t","originalTransactionID":"o"}}"#,  // a required key missing
            base + "} trailing", base
        ] {
            #expect(LedgerEvent.readCommon(type: "subscription.renewed", payload: payload) == nil, "\(payload)")
        }
        // A start without isResubscribe is not a valid payload: neither reader accepts it.
        #expect(LedgerEvent.readCommon(type: "subscription.started", payload: base + "}") == nil)
        #expect(throws: EventDecodingError.self) { try LedgerEvent.decode(type: "subscription.started", schemaVersion: 1, payload: base + "}") }
    }
}
