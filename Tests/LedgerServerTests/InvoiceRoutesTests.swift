import Crypto
import Foundation
import HTTPTypes
import LedgerServerTestSupport
import PostgresClient
import Testing
import UTCTime

@Suite struct InvoiceRoutesTests {
    /// 2026-04-02T00:00:00Z: March, the month these tests bill, has ended by the service clock.
    static let afterMarch = Instant(secondsSinceEpoch: 1_775_088_000)

    static func purchase(_ id: String, day: String = "2026-03-05T10:00:00Z", environment: String = "production") -> String {
        #"{"payment_id":"\#(id)","provider":"paylike","product_id":"pro","product_type":"non_consumable","price":{"amount_milliunits":4990,"#
            + #""currency":"USD"},"purchased_at":"\#(day)","environment":"\#(environment)"}"#
    }

    /// A plan priced in yen renders whole yen, one in dinars three decimals, in every export.
    @Test(arguments: [("JPY", "1234", "3702"), ("KWD", "1.234", "3.702"), ("USD", "12.34", "37.02")])
    func moneyRendersWithTheCurrencysOwnDecimals(currency: String, unit: String, total: String) async throws {
        let harness = try await APIHarness.make(now: Self.afterMarch)
        try await harness.test { api in
            let tenant = try await api.tenant()
            for user in ["u1", "u2", "u3"] {
                #expect(
                    try await api.send(
                        .post, "/v1/users/\(user)/external-purchases", headers: tenant.secret,
                        json: Self.purchase("pay-\(user)")
                    ).status == .created)
            }
            let planID = "flat-\(currency.lowercased())"
            #expect(
                try await api.send(
                    .post, "/v1/admin/plans", headers: APIClient.admin,
                    json: #"{"id":"\#(planID)","currency":"\#(currency)","tiers":[{"from":1,"unit_price_minor":1234}]}"#
                )
                .status == .created)
            #expect(
                try await api.send(
                    .put, "/v1/admin/accounts/\(tenant.accountID)/plan", headers: APIClient.admin,
                    json: #"{"plan_id":"\#(planID)","from_month":"2026-03"}"#
                ).status == .ok)
            let finalized = try await api.send(
                .post, "/v1/admin/invoices", headers: APIClient.admin,
                json: #"{"month":"2026-03","account_id":"\#(tenant.accountID)"}"#)
            let invoice = try #require(finalized.array("results").first?["invoice"] as? [String: Any], "\(finalized.text)")
            let id = try #require(invoice["id"] as? String)
            #expect(invoice["total"] as? String == total)
            let html = try await api.send(.get, "/v1/admin/invoices/\(id)?format=html", headers: APIClient.admin)
            #expect(html.text.contains(">\(unit)<") && html.text.contains("\(total) \(currency)"), "\(html.text)")
            let csv = try await api.send(.get, "/v1/admin/invoices/\(id)?format=csv", headers: APIClient.admin)
            #expect(csv.text.contains(",users 1+,3,1234,3702,\(currency),\(unit),\(total)\r\n"), "\(csv.text)")
            #expect(csv.text.contains(",total,,2026-03,total,3,,3702,\(currency),,\(total)\r\n"))
        }
    }

    @Test func financeFinalizesExportsReproducesAndVoidsThroughTheAPI() async throws {
        let harness = try await APIHarness.make(now: Self.afterMarch)
        try await harness.test { api in
            let tenant = try await api.tenant()
            for user in ["u1", "u2", "u3"] {
                #expect(
                    try await api.send(
                        .post, "/v1/users/\(user)/external-purchases", headers: tenant.secret,
                        json: Self.purchase("pay-\(user)")
                    ).status == .created)
            }
            _ = try await api.send(
                .post, "/v1/users/u4/external-purchases", headers: tenant.secret,
                json: Self.purchase(
                    "pay-test",
                    environment: "test"))
            // A plan that charges from the first user, from March on.
            let plan = try await api.send(
                .post, "/v1/admin/plans", headers: APIClient.admin,
                json: #"{"id":"flat5","currency":"USD","tiers":[{"from":1,"unit_price_minor":5}]}"#)
            #expect(plan.status == .created, "\(plan.text)")
            #expect(
                try await api.send(
                    .post, "/v1/admin/plans", headers: APIClient.admin,
                    json: #"{"id":"flat5","currency":"USD","tiers":[{"from":1,"unit_price_minor":5}]}"#
                ).status == .conflict)
            #expect(
                try await api.send(
                    .post, "/v1/admin/plans", headers: APIClient.admin,
                    json: #"{"id":"gappy","currency":"USD","tiers":[{"from":2,"unit_price_minor":5}]}"#
                ).status == .badRequest)
            #expect(
                try await api.send(
                    .put, "/v1/admin/accounts/\(tenant.accountID)/plan", headers: APIClient.admin,
                    json: #"{"plan_id":"flat5","from_month":"2026-03"}"#
                ).status == .ok)

            let draft = try await api.send(.get, "/v1/admin/invoice-drafts?account_id=\(tenant.accountID)&month=2026-03", headers: APIClient.admin)
            #expect(draft.json["paying_users"] as? Int == 3, "\(draft.text)")
            #expect(draft.json["total_minor"] as? Int == 15)

            let finalized = try await api.send(.post, "/v1/admin/invoices", headers: APIClient.admin, json: #"{"month":"2026-03"}"#)
            #expect(finalized.status == .ok)
            let result = try #require(
                finalized.array("results").first {
                    ($0["invoice"] as? [String: Any])?["account_id"] as? String == tenant.accountID
                })
            #expect(result["created"] as? Bool == true)
            let invoice = try #require(result["invoice"] as? [String: Any])
            let id = try #require(invoice["id"] as? String)
            #expect(invoice["number"] as? String == "2026-000001")
            let again = try await api.send(
                .post, "/v1/admin/invoices", headers: APIClient.admin,
                json: #"{"month":"2026-03","account_id":"\#(tenant.accountID)"}"#)
            #expect((again.array("results").first?["created"] as? Bool) == false)
            // The plan cannot change retroactively for an invoiced month.
            #expect(
                try await api.send(
                    .put, "/v1/admin/accounts/\(tenant.accountID)/plan", headers: APIClient.admin,
                    json: #"{"plan_id":"standard","from_month":"2026-03"}"#
                ).status == .conflict)

            let csv = try await api.send(.get, "/v1/admin/invoices/\(id)?format=csv", headers: APIClient.admin)
            #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            #expect(csv.text.contains(",total,,2026-03,total,3,,15,USD"))
            let html = try await api.send(.get, "/v1/admin/invoices/\(id)?format=html", headers: APIClient.admin)
            #expect(html.text.contains("0.15 USD"))
            let reproduction = try await api.send(.get, "/v1/admin/invoices/\(id)/reproduction", headers: APIClient.admin)
            #expect(reproduction.json["reproduced"] as? Bool == true)

            let voided = try await api.send(.post, "/v1/admin/invoices/\(id)/void", headers: APIClient.admin, json: #"{"reason":"test"}"#)
            #expect(voided.status == .ok, "\(voided.text)")
            let replacement = try #require(voided.json["replacement"] as? [String: Any])
            #expect(replacement["replaces"] as? String == id)
            #expect(replacement["number"] as? String == "2026-000002")
            #expect(
                try await api.send(
                    .post, "/v1/admin/invoices/\(id)/void", headers: APIClient.admin,
                    json: #"{"reason":"again"}"#
                ).status == .conflict)
            let listed = try await api.send(.get, "/v1/admin/invoices?account_id=\(tenant.accountID)", headers: APIClient.admin)
            #expect(listed.array("invoices").compactMap { $0["status"] as? String } == ["finalized", "voided"])

            // Finance endpoints are the admin's only.
            for (method, uri) in [(HTTPRequest.Method.get, "/v1/admin/invoices"), (.get, "/v1/admin/invoices/\(id)"), (.post, "/v1/admin/invoices")] {
                #expect(
                    try await api.send(
                        method, uri, headers: tenant.secret,
                        json: method == .post ? #"{"month":"2026-03"}"# : nil
                    ).status == .unauthorized)
            }
            #expect(try await api.send(.get, "/v1/admin/invoices/inv_nope", headers: APIClient.admin).status == .notFound)
            #expect(try await api.send(.post, "/v1/admin/invoices", headers: APIClient.admin, json: #"{"month":"2026-13"}"#).status == .badRequest)
        }
    }

    /// Finalizing refuses a month that has not ended by the service clock, whichever way it is asked (one account or
    /// all), with a 409 that says when it can be done, and numbers nothing; the running month's draft still answers.
    /// The first minute after the month ends, it finalizes as the year's first invoice.
    @Test func finalizingAMonthThatHasNotEndedIsRefusedAndNumbersNothing() async throws {
        let lastMinuteOfMarch = Instant(secondsSinceEpoch: 1_775_001_600 - 60)  // 2026-03-31T23:59:00Z
        let harness = try await APIHarness.make(now: lastMinuteOfMarch)
        try await harness.test { api in
            let tenant = try await api.tenant()
            #expect(
                try await api.send(
                    .post, "/v1/users/u1/external-purchases", headers: tenant.secret,
                    json: Self.purchase("pay-u1")
                ).status == .created)
            for month in ["2031-05", "2026-03"] {
                for body in [#"{"month":"\#(month)"}"#, #"{"month":"\#(month)","account_id":"\#(tenant.accountID)"}"#] {
                    let refused = try await api.send(.post, "/v1/admin/invoices", headers: APIClient.admin, json: body)
                    #expect(refused.status == .conflict && refused.errorCode == "month_not_ended", "\(body): \(refused.text)")
                    #expect(refused.errorMessage?.contains("\(month) has not ended yet") == true, "\(refused.text)")
                }
            }
            let refused = try await api.send(.post, "/v1/admin/invoices", headers: APIClient.admin, json: #"{"month":"2026-03"}"#)
            #expect(refused.errorMessage?.contains("from 2026-04-01 on") == true, "\(refused.text)")
            let draft = try await api.send(.get, "/v1/admin/invoice-drafts?account_id=\(tenant.accountID)&month=2026-03", headers: APIClient.admin)
            #expect(draft.status == .ok && draft.json["paying_users"] as? Int == 1, "\(draft.text)")
            #expect(try await api.send(.get, "/v1/admin/invoices", headers: APIClient.admin).array("invoices").isEmpty)
            #expect(try await harness.pool.query("SELECT year FROM ledger.invoice_numbers").isEmpty)

            harness.clock.advance(seconds: 60)  // 2026-04-01T00:00:00Z: March has ended.
            let finalized = try await api.send(
                .post, "/v1/admin/invoices", headers: APIClient.admin,
                json: #"{"month":"2026-03","account_id":"\#(tenant.accountID)"}"#)
            #expect(finalized.status == .ok, "\(finalized.text)")
            let invoice = try #require(finalized.array("results").first?["invoice"] as? [String: Any])
            #expect(invoice["number"] as? String == "2026-000001")
            #expect(finalized.array("results").first?["created"] as? Bool == true)
        }
    }

    /// Every key of a JSON value, at any depth.
    static func keys(_ value: Any) -> [String] {
        switch value {
        case let object as [String: Any]: object.keys.sorted() + object.values.flatMap(keys)
        case let array as [Any]: array.flatMap(keys)
        default: []
        }
    }

    static func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// Invoice JSON answers are snake_case everywhere it leaves the service (API answers of every invoice operation,
    /// the console's JSON download), while the stored content, which the hash covers, stays the canonical camelCase
    /// text byte for byte. Fails if a camelCase member comes back.
    @Test func invoiceJSONIsSnakeCaseOnTheWireAndUnchangedInStorage() async throws {
        let harness = try await APIHarness.make(now: Self.afterMarch)
        try await harness.test { api in
            let tenant = try await api.tenant()
            for user in ["u1", "u2"] {
                #expect(
                    try await api.send(
                        .post, "/v1/users/\(user)/external-purchases", headers: tenant.secret,
                        json: Self.purchase("pay-\(user)")
                    ).status == .created)
            }
            // A finalized month, then a late user of it: the next month's invoice has an adjustment line.
            _ = try await api.send(.post, "/v1/admin/invoices", headers: APIClient.admin, json: #"{"month":"2026-02"}"#)
            let month = #"{"month":"2026-03","account_id":"\#(tenant.accountID)"}"#
            let finalized = try await api.send(.post, "/v1/admin/invoices", headers: APIClient.admin, json: month)
            let id = try #require((finalized.array("results").first?["invoice"] as? [String: Any])?["id"] as? String, "\(finalized.text)")
            #expect(
                try await api.send(
                    .post, "/v1/users/u3/external-purchases", headers: tenant.secret,
                    json: Self.purchase("pay-u3", day: "2026-02-05T10:00:00Z")
                ).status == .created)
            let session = try #require(try await ConsoleTests.signIn(api).1)
            var answers = [
                finalized.text,
                try await api.send(.get, "/v1/admin/invoices/\(id)", headers: APIClient.admin).text,
                try await api.send(.get, "/v1/admin/invoices?account_id=\(tenant.accountID)", headers: APIClient.admin).text,
                try await api.send(.get, "/v1/admin/invoice-drafts?account_id=\(tenant.accountID)&month=2026-03", headers: APIClient.admin).text,
                try await api.send(.get, "/console/finance/invoices/\(id)/download?format=json", headers: session.headers).text
            ]
            // The void's replacement, counted now, bills the late February user as an adjustment line.
            let voided = try await api.send(.post, "/v1/admin/invoices/\(id)/void", headers: APIClient.admin, json: #"{"reason":"test"}"#)
            let replacement = (voided.json["replacement"] as? [String: Any])?["content"] as? [String: Any]
            #expect((replacement?["adjustments"] as? [[String: Any]])?.count == 1, "\(voided.text)")
            answers.append(voided.text)
            let wire = try answers.flatMap { Self.keys(try Self.json($0)) }
            let camel = Set(wire.filter { $0.contains { $0.isUppercase } })
            #expect(camel.isEmpty, "camelCase members on the wire: \(camel.sorted())")
            for member in [
                "account_id", "plan_id", "paying_users", "app_id", "unit_price_minor", "flat_fee_minor", "amount_minor",
                "subtotal_minor", "adjustments_minor", "total_minor", "users", "month"
            ] {
                #expect(wire.contains(member), "\(member) is missing")
            }

            // Stored as before: the canonical camelCase text, whose SHA-256 is the stored hash.
            let rows = try await harness.pool.query("SELECT content, content_hash FROM ledger.invoices WHERE id = \(id)")
            let stored = try #require(rows.first)
            let content = try stored.decode(String.self, at: 0)
            #expect(content.hasPrefix(#"{"accountID":"\#(tenant.accountID)","adjustments":[],"adjustmentsMinor":0,"apps":[{"appID":"#))
            #expect(content.contains(#""payingUsers":2"#) && content.contains(#""totalMinor":0}"#), "\(content)")
            #expect(Array(SHA256.hash(data: Array(content.utf8))) == (try stored.decode([UInt8].self, at: 1)))
            // The wire content is the stored content under snake_case names: same members, same values.
            let wireContent = try #require((try Self.json(answers[1]) as? [String: Any])?["content"] as? [String: Any])
            let storedContent = try #require(try Self.json(content) as? [String: Any])
            #expect(Set(Self.keys(wireContent)) == Set(Self.keys(storedContent).map(Self.snakeCase)))
            #expect(wireContent["paying_users"] as? Int == storedContent["payingUsers"] as? Int)
        }
    }

    /// `payingUsers` → `paying_users`, `accountID` → `account_id`.
    static func snakeCase(_ name: String) -> String {
        var out = ""
        for (index, character) in name.enumerated() {
            let previous = index > 0 ? Array(name)[index - 1] : nil
            if character.isUppercase, let previous, !previous.isUppercase { out += "_" }
            out += character.lowercased()
        }
        return out
    }
}
