import Foundation
import HTTPTypes
import LedgerServerTestSupport
import Testing

@Suite struct InvoiceRoutesTests {
    static func purchase(_ id: String, day: String = "2026-03-05T10:00:00Z", environment: String = "production") -> String {
        #"{"payment_id":"\#(id)","provider":"paylike","product_id":"pro","product_type":"non_consumable","price":{"amount_milliunits":4990,"# +
            #""currency":"USD"},"purchased_at":"\#(day)","environment":"\#(environment)"}"#
    }

    /// A plan priced in yen renders whole yen, one in dinars three decimals, in every export.
    @Test(arguments: [("JPY", "1234", "3702"), ("KWD", "1.234", "3.702"), ("USD", "12.34", "37.02")])
    func moneyRendersWithTheCurrencysOwnDecimals(currency: String, unit: String, total: String) async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let tenant = try await api.tenant()
            for user in ["u1", "u2", "u3"] {
                #expect(try await api.send(.post, "/v1/users/\(user)/external-purchases", headers: tenant.secret,
                    json: Self.purchase("pay-\(user)")).status == .created)
            }
            let planID = "flat-\(currency.lowercased())"
            #expect(try await api.send(.post, "/v1/admin/plans", headers: APIClient.admin,
                                       json: #"{"id":"\#(planID)","currency":"\#(currency)","tiers":[{"from":1,"unit_price_minor":1234}]}"#)
                        .status == .created)
            #expect(try await api.send(.put, "/v1/admin/accounts/\(tenant.accountID)/plan", headers: APIClient.admin,
                                       json: #"{"plan_id":"\#(planID)","from_month":"2026-03"}"#).status == .ok)
            let finalized = try await api.send(.post, "/v1/admin/invoices", headers: APIClient.admin,
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
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let tenant = try await api.tenant()
            for user in ["u1", "u2", "u3"] {
                #expect(try await api.send(.post, "/v1/users/\(user)/external-purchases", headers: tenant.secret,
                    json: Self.purchase("pay-\(user)")).status == .created)
            }
            _ = try await api.send(.post, "/v1/users/u4/external-purchases", headers: tenant.secret, json: Self.purchase("pay-test",
                environment: "test"))
            // A plan that charges from the first user, from March on.
            let plan = try await api.send(.post, "/v1/admin/plans", headers: APIClient.admin,
                                          json: #"{"id":"flat5","currency":"USD","tiers":[{"from":1,"unit_price_minor":5}]}"#)
            #expect(plan.status == .created, "\(plan.text)")
            #expect(try await api.send(.post, "/v1/admin/plans", headers: APIClient.admin,
                                       json: #"{"id":"flat5","currency":"USD","tiers":[{"from":1,"unit_price_minor":5}]}"#).status == .conflict)
            #expect(try await api.send(.post, "/v1/admin/plans", headers: APIClient.admin,
                                       json: #"{"id":"gappy","currency":"USD","tiers":[{"from":2,"unit_price_minor":5}]}"#).status == .badRequest)
            #expect(try await api.send(.put, "/v1/admin/accounts/\(tenant.accountID)/plan", headers: APIClient.admin,
                                       json: #"{"plan_id":"flat5","from_month":"2026-03"}"#).status == .ok)

            let draft = try await api.send(.get, "/v1/admin/invoice-drafts?account_id=\(tenant.accountID)&month=2026-03", headers: APIClient.admin)
            #expect(draft.json["payingUsers"] as? Int == 3, "\(draft.text)")
            #expect(draft.json["totalMinor"] as? Int == 15)

            let finalized = try await api.send(.post, "/v1/admin/invoices", headers: APIClient.admin, json: #"{"month":"2026-03"}"#)
            #expect(finalized.status == .ok)
            let result = try #require(finalized.array("results").first {
                ($0["invoice"] as? [String: Any])?["account_id"] as? String == tenant.accountID
            })
            #expect(result["created"] as? Bool == true)
            let invoice = try #require(result["invoice"] as? [String: Any])
            let id = try #require(invoice["id"] as? String)
            #expect(invoice["number"] as? String == "2026-000001")
            let again = try await api.send(.post, "/v1/admin/invoices", headers: APIClient.admin,
                json: #"{"month":"2026-03","account_id":"\#(tenant.accountID)"}"#)
            #expect((again.array("results").first?["created"] as? Bool) == false)
            // The plan cannot change retroactively for an invoiced month.
            #expect(try await api.send(.put, "/v1/admin/accounts/\(tenant.accountID)/plan", headers: APIClient.admin,
                                       json: #"{"plan_id":"standard","from_month":"2026-03"}"#).status == .conflict)

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
            #expect(try await api.send(.post, "/v1/admin/invoices/\(id)/void", headers: APIClient.admin,
                json: #"{"reason":"again"}"#).status == .conflict)
            let listed = try await api.send(.get, "/v1/admin/invoices?account_id=\(tenant.accountID)", headers: APIClient.admin)
            #expect(listed.array("invoices").compactMap { $0["status"] as? String } == ["finalized", "voided"])

            // Finance endpoints are the admin's only.
            for (method, uri) in [(HTTPRequest.Method.get, "/v1/admin/invoices"), (.get, "/v1/admin/invoices/\(id)"), (.post, "/v1/admin/invoices")] {
                #expect(try await api.send(method, uri, headers: tenant.secret,
                    json: method == .post ? #"{"month":"2026-03"}"# : nil).status == .unauthorized)
            }
            #expect(try await api.send(.get, "/v1/admin/invoices/inv_nope", headers: APIClient.admin).status == .notFound)
            #expect(try await api.send(.post, "/v1/admin/invoices", headers: APIClient.admin, json: #"{"month":"2026-13"}"#).status == .badRequest)
        }
    }
}
