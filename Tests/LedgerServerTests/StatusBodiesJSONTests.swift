import ExactJSON
import Foundation
import Testing

@testable import LedgerServer
@testable import LedgerWire

/// The status answers write their own JSON (`JSONWritable`); clients compare and verify those bytes (they are signed),
/// so each body must write exactly what its `Encodable` conformance makes `JSONEncoder` write with sorted keys. Bodies
/// of every shape are compared byte for byte: every member absent and present, strings with every escape, integers to
/// their limits, lists empty and long.
@Suite struct StatusBodiesJSONTests {
    static func foundation(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// The `member`-th choice of body `seed`: members vary independently of each other across seeds.
    struct Choices {
        let seed: Int
        var member = 0

        static let strings = [
            "", "monthly", "a/b", "quote \" back \\ slash", "\n\r\t\u{08}\u{0C}", "\u{0}\u{1}\u{1F}\u{7F}", "é😀", "\u{2028}\u{2029}",
            "2026-01-31T12:00:00Z", String(repeating: "long ", count: 30)
        ]
        static let integers: [Int64] = [0, 1, -1, 9, 10, 12_990_000, Int64.max, Int64.min]

        mutating func next(_ count: Int) -> Int {
            member += 1
            return (seed &* 7_919 &+ member &* member &* 104_729 &+ seed / 3 &* member) % count
        }

        mutating func string() -> String { Self.strings[next(Self.strings.count)] }
        mutating func bool() -> Bool { next(2) == 0 }
        mutating func integer() -> Int64 { Self.integers[next(Self.integers.count)] }
        mutating func nullable<Value>(_ make: (inout Choices) -> Value) -> Nullable<Value> {
            Nullable(next(3) == 0 ? nil : make(&self))
        }
        mutating func list<Element>(_ make: (inout Choices) -> Element) -> [Element] {
            (0..<next(4)).map { _ in make(&self) }
        }
    }

    static func subscription(_ c: inout Choices) -> SubscriptionBody {
        SubscriptionBody(
            originalTransactionID: c.string(), productID: c.nullable { $0.string() }, subscriptionGroup: c.nullable { $0.string() },
            status: c.string(), expirationReason: c.nullable { $0.string() }, isEntitled: c.bool(), expiresAt: c.nullable { $0.string() },
            gracePeriodExpiresAt: c.nullable { $0.string() }, autoRenew: c.nullable { $0.bool() }, nextProductID: c.nullable { $0.string() },
            priceIncrease: c.nullable { $0.string() },
            offer: c.nullable {
                OfferBody(
                    type: $0.string(), identifier: $0.nullable { $0.string() }, paymentMode: $0.nullable { $0.string() },
                    period: $0.nullable { $0.string() })
            },
            environment: c.nullable { $0.string() }, familyShared: c.bool(), latestTransactionID: c.nullable { $0.string() },
            appTransactionID: c.nullable { $0.string() }, billingPlanType: c.nullable { $0.string() },
            commitment: c.nullable {
                CommitmentBody(
                    billingPeriodNumber: $0.nullable { Int($0.integer()) }, totalBillingPeriods: $0.nullable { Int($0.integer()) },
                    expiresAt: $0.nullable { $0.string() }, priceAfterMilliunits: $0.nullable { $0.integer() },
                    currency: $0.nullable { $0.string() })
            })
    }

    static func user(_ seed: Int) -> UserBody {
        var c = Choices(seed: seed)
        return UserBody(
            appUserID: c.string(), known: c.bool(), subscriptions: c.list(subscription),
            entitlements: c.list {
                EntitlementBody(id: $0.string(), isActive: $0.bool(), expiresAt: $0.nullable { $0.string() }, productID: $0.string())
            },
            oneTimePurchases: c.list {
                PurchaseBody(
                    originalTransactionID: $0.string(), transactionID: $0.string(), productID: $0.string(), type: $0.string(),
                    purchasedAt: $0.string(), expiresAt: $0.nullable { $0.string() }, isActive: $0.bool(),
                    consumedAt: $0.nullable { $0.string() }, refunded: $0.bool(), environment: $0.string())
            },
            grants: c.list {
                GrantBody(
                    grantID: $0.string(), entitlementID: $0.string(), grantedAt: $0.string(), expiresAt: $0.string(),
                    revokedAt: $0.nullable { $0.string() }, isActive: $0.bool())
            },
            unconsumed: c.list {
                UnconsumedBody(
                    originalTransactionID: $0.string(), transactionID: $0.string(), productID: $0.string(), purchasedAt: $0.string(),
                    quantity: Int($0.integer()), developerPayload: $0.nullable { $0.string() })
            },
            productsStatus: c.list { ProductStatusBody(id: $0.string(), status: $0.string()) },
            introOfferEligibility: c.list { IntroOfferEligibilityBody(subscriptionGroup: $0.string(), eligible: $0.bool()) })
    }

    @Test func everyStatusBodyWritesTheBytesJSONEncoderWrites() throws {
        var present = Set<String>()
        for seed in 0..<3_000 {
            let body = Self.user(seed)
            let ours = body.jsonBytes
            let theirs = try Self.foundation(body)
            #expect(ours == theirs, "seed \(seed): \(String(decoding: ours, as: UTF8.self)) vs \(String(decoding: theirs, as: UTF8.self))")
            // The answers' encoder takes the written path and gives the same bytes.
            #expect(try SortedKeysEncoder().encode(body) == theirs)
            let seedAnswer = ProductsStatusAnswer(embedded: .init(products: body.productsStatus))
            #expect(seedAnswer.jsonBytes == (try Self.foundation(seedAnswer)))
            Self.collectPresent(try JSONSerialization.jsonObject(with: Data(theirs)), into: &present)
        }
        // The seeds gave the nested and nullable members values, not only `null`.
        for key in ["commitment", "offer", "payment_mode", "price_after_milliunits", "developer_payload", "revoked_at", "eligible", "consumed_at"] {
            #expect(present.contains(key), "no seed gave \(key) a value")
        }
    }

    /// The keys of every object in `json` whose value is not `null`.
    static func collectPresent(_ json: Any, into keys: inout Set<String>) {
        if let object = json as? [String: Any] {
            for (key, value) in object where !(value is NSNull) {
                keys.insert(key)
                collectPresent(value, into: &keys)
            }
        } else if let array = json as? [Any] {
            for element in array { collectPresent(element, into: &keys) }
        }
    }
}
