import Foundation
import Testing

@testable import SubscriptionLedgerSDKCore

/// The SDK's wire models against the server's contract (`openapi.json`): every schema the SDK decodes has exactly
/// the members the SDK's type names, every example of the document (in the schemas and in the answers of the paths)
/// decodes, and every enum value the server may send is a case of the SDK's enum. A member added to an answer, or an
/// example the SDK could not read, fails here before an app meets it.
@Suite struct SDKContractTests {
    static var document: [String: Any] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/LedgerServer/OpenAPI/openapi.json")
        let data = (try? Data(contentsOf: url)) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    static var schemas: [String: [String: Any]] {
        ((document["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]]) ?? [:]
    }

    static func decode(_ type: any WireModel.Type, _ value: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
        _ = try JSONDecoder().decode(type, from: data)
    }

    @Test func everySchemaTheSDKDecodesHasExactlyItsMembers() throws {
        #expect(!Self.schemas.isEmpty, "openapi.json was not found")
        for (name, type) in Wire.schemas {
            let schema = try #require(Self.schemas[name], "no schema \(name) in openapi.json")
            let properties = Set((schema["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
            #expect(properties == Set(type.members), "\(name): the document has \(properties.sorted()), the SDK \(type.members.sorted())")
            // What the document requires, the SDK reads; it may not require more than the document does.
            let required = Set(schema["required"] as? [String] ?? [])
            #expect(required.isSubset(of: Set(type.members)), "\(name) requires \(required.subtracting(type.members).sorted())")
        }
    }

    @Test func everyExampleOfTheDocumentDecodes() throws {
        var decoded = 0
        for (name, type) in Wire.schemas {
            if let example = Self.schemas[name]?["example"] {
                #expect(throws: Never.self, "the example of \(name)") { try Self.decode(type, example) }
                decoded += 1
            }
        }
        let paths = Self.document["paths"] as? [String: [String: Any]] ?? [:]
        for (path, operations) in paths {
            for (method, operation) in operations {
                let responses = (operation as? [String: Any])?["responses"] as? [String: [String: Any]] ?? [:]
                for (status, response) in responses {
                    for (_, content) in response["content"] as? [String: [String: Any]] ?? [:] {
                        guard let reference = (content["schema"] as? [String: Any])?["$ref"] as? String,
                            let type = Wire.schemas[String(reference.split(separator: "/").last ?? "")]
                        else { continue }
                        var examples = (content["examples"] as? [String: [String: Any]] ?? [:]).values.compactMap { $0["value"] }
                        if let example = content["example"] { examples.append(example) }
                        for example in examples {
                            #expect(throws: Never.self, "\(method.uppercased()) \(path) \(status)") { try Self.decode(type, example) }
                            decoded += 1
                        }
                    }
                }
            }
        }
        #expect(decoded >= 20, "only \(decoded) examples found")
    }

    /// Every status, reason and type the document says the server sends is a known case (never `.unknown`), so an app
    /// can `switch` over them.
    @Test func everyEnumValueTheServerSendsIsACase() throws {
        func values(_ schema: String, _ member: String) throws -> [String] {
            let property = try #require((Self.schemas[schema]?["properties"] as? [String: [String: Any]])?[member], "\(schema).\(member)")
            let listed = (property["enum"] as? [String]) ?? (property["examples"] as? [String]) ?? []
            #expect(!listed.isEmpty, "\(schema).\(member) lists no values")
            return listed
        }
        for value in try values("Subscription", "status") {
            let status = SubscriptionStatus(wire: value)
            #expect(status.rawValue == value, "subscription status \(value)")
        }
        let statusDescription = (Self.schemas["Subscription"]?["properties"] as? [String: [String: Any]])?["status"]?["description"] as? String ?? ""
        for status in SubscriptionStatus.allCases {
            #expect(statusDescription.contains("`\(status.rawValue)`"), "the document does not name \(status.rawValue)")
        }
        let reasons = (Self.schemas["Subscription"]?["properties"] as? [String: [String: Any]])?["expiration_reason"]?["description"] as? String ?? ""
        for reason in ["voluntary", "billing_error", "price_increase_declined", "product_unavailable", "lapsed"] {
            #expect(reasons.contains("`\(reason)`"), "the document does not name the reason \(reason)")
            if case .other = ExpirationReason(wire: reason) { Issue.record("expiration reason \(reason) is not a case") }
        }
        for value in try values("ProductStatus", "status") { #expect(ProductStatus.State(rawValue: value) != nil, "product status \(value)") }
        let types = try #require(Self.schemas["ProductType"]?["enum"] as? [String])
        for value in types { #expect(ProductType(wire: value) != .unknown, "product type \(value)") }
        for value in try values("Offer", "type") { #expect(SubscriptionOffer.Kind(rawValue: value) != nil, "offer type \(value)") }
        for value in try values("ConsumptionConsentResult", "source") {
            #expect(ConsumptionConsentResult.Source(rawValue: value) != nil, "consent source \(value)")
        }
    }

    /// A snapshot decodes into typed values: instants as `Date`, statuses as enums, eligibility by group.
    @Test func theUserStateBecomesATypedSnapshot() throws {
        let json = #"""
            {"app_user_id":"u","known":true,"subscriptions":[{"original_transaction_id":"1","product_id":"monthly","subscription_group":"main",
            "status":"expired","expiration_reason":"billing_error","is_entitled":false,"expires_at":"2026-01-01T00:00:00Z",
            "grace_period_expires_at":null,"auto_renew":false,"next_product_id":null,"price_increase":null,
            "offer":{"type":"introductory","identifier":null,"payment_mode":"FREE_TRIAL","period":"P1W"},"environment":"Sandbox",
            "family_shared":false,"latest_transaction_id":"2","app_transaction_id":null,"billing_plan_type":null,"commitment":null}],
            "entitlements":[{"id":"pro","is_active":false,"expires_at":"2026-01-01T00:00:00.250Z","product_id":"monthly"}],
            "one_time_purchases":[],"grants":[],"unconsumed":[],"products_status":[{"id":"monthly","status":"inactive"}],
            "intro_offer_eligibility":[{"subscription_group":"main","eligible":false}]}
            """#
        let wire = try JSONDecoder().decode(Wire.UserState.self, from: Data(json.utf8))
        let info = try CustomerInfo(wire, issuedAt: Date(timeIntervalSince1970: 0), source: .ledger)
        let subscription = try #require(info.subscriptions.first)
        #expect(subscription.status == .expired && subscription.expirationReason == .billingError)
        #expect(subscription.environment == .sandbox && subscription.offer?.kind == .introductory)
        #expect(subscription.expiresAt == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(info.entitlements.first?.expiresAt == Date(timeIntervalSince1970: 1_767_225_600.25))
        #expect(info.productsStatus == [ProductStatus(id: "monthly", status: .inactive)])
        #expect(!info.isEligibleForIntroOffer(inGroup: "main") && info.isEligibleForIntroOffer(inGroup: "other"))
        // A malformed instant is a broken answer, not a missing date.
        let broken = json.replacingOccurrences(of: "2026-01-01T00:00:00Z", with: "yesterday")
        #expect(throws: LedgerError.self) {
            try CustomerInfo(try JSONDecoder().decode(Wire.UserState.self, from: Data(broken.utf8)), issuedAt: Date(), source: .ledger)
        }
    }
}
