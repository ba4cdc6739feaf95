import AppStoreSamples
import Foundation
import HTTPTypes
import LedgerServerTestSupport
import Testing
import UTCTime

/// `GET /v1/apps/{app_id}/revenue` and the console's revenue chart (both `RevenueQueries`), on a data set whose sums
/// are worked out by hand below.
@Suite struct RevenueRoutesTests {
    static let jan1 = AppStorePayloads.jan1
    static let day = AppStorePayloads.day

    /// Apple's notifications and the developer's external purchases, recorded through the API. Each App Store price is
    /// 9990 milliunits (9.99 USD) as the test payloads say.
    ///
    /// | payment | month | counts | refunded |
    /// |---|---|---|---|
    /// | App Store subscription 7001 started | 2026-01 | 999 USD | |
    /// | its renewal 7002 | 2026-02 | 999 USD | |
    /// | App Store consumable 7003 | 2026-01 | 999 USD | 999 USD |
    /// | App Store consumable 7004, refunded then the refund reversed | 2026-02 | 999 USD | |
    /// | App Store consumable 7005, Sandbox | 2026-01 | no | |
    /// | App Store consumable 7006, Xcode | 2026-01 | no | |
    /// | external 4990 milliunits USD | 2026-01 | 499 USD | |
    /// | external 1,500,000 milliunits JPY | 2026-02 | 1500 JPY | |
    /// | external 9990 milliunits USD, test mode | 2026-01 | no | |
    /// | external 4990 milliunits USD, 2025-12-31T23:59:59Z and 2026-03-01T00:00:00Z | 2025-12, 2026-03 | outside 2026-01…02 | |
    ///
    /// 2026-01 USD: gross 999 + 999 + 499 = 2497, refunds 999, net 1498 (3 payments, 1 refunded).
    /// 2026-02 JPY: gross 1500, net 1500. 2026-02 USD: gross 999 + 999 = 1998, refunds 0 (reversed), net 1998.
    /// Totals: JPY 1500 / 0 / 1500 (1 payment); USD 4495 / 999 / 3496 (5 payments, 1 refunded).
    static func record(_ api: APIClient, _ tenant: APIClient.Tenant) async throws {
        let s = api.harness.signer
        let url = "/v1/apps/\(tenant.appID)/notifications"
        func notify(
            _ type: String, subtype: String? = nil, id: String, original: String? = nil, productType: String = "Consumable",
            purchase: Int64, signed: Int64, environment: String = "Production", revocation: Int64? = nil
        ) async throws {
            let subscription = productType == "Auto-Renewable Subscription"
            let transaction = AppStorePayloads.transaction(
                id: id, original: original ?? id, product: subscription ? "monthly" : "coins", type: productType, purchase: "\(purchase)",
                originalPurchase: purchase, expires: subscription ? purchase + 31 * day : nil, revocation: revocation,
                revocationReason: revocation.map { _ in 0 }, environment: environment, signed: signed)
            let signedPayload = try s.notification(
                type: type, subtype: subtype, signed: signed, transactionJSON: transaction,
                environment: environment)
            let answer = try await api.send(.post, url, json: #"{"signedPayload":"\#(signedPayload)"}"#)
            #expect(answer.status == .ok, "\(type) \(id): \(answer.text)")
        }
        let subscription = "Auto-Renewable Subscription"
        try await notify(
            "SUBSCRIBED", subtype: "INITIAL_BUY", id: "7001", productType: subscription, purchase: jan1 + 9 * day,
            signed: jan1 + 9 * day + 1_000)
        try await notify(
            "DID_RENEW", id: "7002", original: "7001", productType: subscription, purchase: jan1 + 40 * day,
            signed: jan1 + 40 * day + 1_000)
        try await notify("ONE_TIME_CHARGE", id: "7003", purchase: jan1 + 14 * day, signed: jan1 + 14 * day + 1_000)
        try await notify("REFUND", id: "7003", purchase: jan1 + 14 * day, signed: jan1 + 20 * day, revocation: jan1 + 20 * day)
        try await notify("ONE_TIME_CHARGE", id: "7004", purchase: jan1 + 50 * day, signed: jan1 + 50 * day + 1_000)
        try await notify("REFUND", id: "7004", purchase: jan1 + 50 * day, signed: jan1 + 52 * day, revocation: jan1 + 52 * day)
        try await notify("REFUND_REVERSED", id: "7004", purchase: jan1 + 50 * day, signed: jan1 + 53 * day)
        try await notify("ONE_TIME_CHARGE", id: "7005", purchase: jan1 + 11 * day, signed: jan1 + 11 * day + 1_000, environment: "Sandbox")
        try await notify("ONE_TIME_CHARGE", id: "7006", purchase: jan1 + 11 * day, signed: jan1 + 11 * day + 1_000, environment: "Xcode")

        func external(_ id: String, milliunits: Int, currency: String = "USD", at time: String, environment: String = "production")
            async throws
        {
            let body =
                #"{"payment_id":"\#(id)","provider":"paylike","product_id":"pro","product_type":"non_consumable","#
                + #""price":{"amount_milliunits":\#(milliunits),"currency":"\#(currency)"},"purchased_at":"\#(time)","#
                + #""environment":"\#(environment)"}"#
            let answer = try await api.send(.post, "/v1/users/user-\(id)/external-purchases", headers: tenant.secret, json: body)
            #expect(answer.status == .created, "\(id): \(answer.text)")
        }
        try await external("e1", milliunits: 4_990, at: "2026-01-05T10:00:00Z")
        try await external("e2", milliunits: 1_500_000, currency: "JPY", at: "2026-02-03T10:00:00Z")
        try await external("e3", milliunits: 9_990, at: "2026-01-10T10:00:00Z", environment: "test")
        try await external("e4", milliunits: 4_990, at: "2025-12-31T23:59:59Z")
        try await external("e5", milliunits: 4_990, at: "2026-03-01T00:00:00Z")
    }

    /// One entry of the answer, its values as text (JSON numbers and Swift integers compare alike).
    static func row(_ month: String?, _ currency: String, gross: Int, refunds: Int, payments: Int, refunded: Int) -> [String: String] {
        var row = [
            "currency": currency, "gross_minor": "\(gross)", "refunds_minor": "\(refunds)", "net_minor": "\(gross - refunds)",
            "payments": "\(payments)", "refunds": "\(refunded)"
        ]
        if let month { row["month"] = month }
        return row
    }

    static func rows(_ value: Any?) -> [[String: String]] {
        (value as? [[String: Any]] ?? []).map { $0.mapValues { "\($0)" } }
    }

    @Test func revenueIsProductionAppStoreAndExternalPaymentsPerCurrencyGrossAndNetOfRefunds() async throws {
        let harness = try await APIHarness.make(now: Instant(secondsSinceEpoch: 1_773_532_800))  // 2026-03-15
        try await harness.test { api in
            let tenant = try await api.tenant(allowXcode: true)
            try await Self.record(api, tenant)
            let answer = try await api.send(.get, "/v1/apps/\(tenant.appID)/revenue?from=2026-01&to=2026-02", headers: tenant.secret)
            #expect(answer.status == .ok, "\(answer.text)")
            #expect(answer.string("app_id") == tenant.appID && answer.string("from") == "2026-01" && answer.string("to") == "2026-02")
            #expect(
                Self.rows(answer.json["months"]) == [
                    Self.row("2026-01", "USD", gross: 2_497, refunds: 999, payments: 3, refunded: 1),
                    Self.row("2026-02", "JPY", gross: 1_500, refunds: 0, payments: 1, refunded: 0),
                    Self.row("2026-02", "USD", gross: 1_998, refunds: 0, payments: 2, refunded: 0)
                ], "\(answer.text)")
            #expect(
                Self.rows(answer.json["totals"]) == [
                    Self.row(nil, "JPY", gross: 1_500, refunds: 0, payments: 1, refunded: 0),
                    Self.row(nil, "USD", gross: 4_495, refunds: 999, payments: 5, refunded: 1)
                ], "\(answer.text)")
            // The months are inclusive and UTC: the payments a second before and at the very start of the span's neighbours.
            let wider = try await api.send(.get, "/v1/apps/\(tenant.appID)/revenue?from=2025-12&to=2026-03", headers: tenant.secret)
            #expect(Self.rows(wider.json["months"]).first == Self.row("2025-12", "USD", gross: 499, refunds: 0, payments: 1, refunded: 0))
            #expect(Self.rows(wider.json["months"]).last == Self.row("2026-03", "USD", gross: 499, refunds: 0, payments: 1, refunded: 0))
            let empty = try await api.send(.get, "/v1/apps/\(tenant.appID)/revenue?from=2020-01&to=2020-12", headers: tenant.secret)
            #expect(empty.status == .ok && Self.rows(empty.json["months"]).isEmpty && Self.rows(empty.json["totals"]).isEmpty)

            // The console's chart shows the same figures, gross and net, in major units.
            let session = try #require(try await ConsoleTests.signIn(api).1)
            let finance = try await api.send(.get, "/console/finance?account=\(tenant.accountID)", headers: session.headers)
            let usdGross = try #require(ConsoleTests.figure("Revenue per month, USD, gross", in: finance.text), "\(finance.text)")
            let usdNet = try #require(ConsoleTests.figure("Revenue per month, USD, net of refunds", in: finance.text))
            let jpyGross = try #require(ConsoleTests.figure("Revenue per month, JPY, gross", in: finance.text))
            for (figure, labels) in [(usdGross, ["24.97", "19.98", "4.99"]), (usdNet, ["14.98", "19.98"]), (jpyGross, ["1500"])] {
                for label in labels { #expect(figure.contains(">\(label)</text>"), "\(label) in \(figure)") }
            }
            #expect(!usdGross.contains(">34.96</text>") && !usdGross.contains(">44.95</text>"), "Sandbox, Xcode or test payments counted")
        }
    }

    @Test func badSpansAndOtherCredentialsAreRefused() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let tenant = try await api.tenant()
            let other = try await api.tenant()
            let base = "/v1/apps/\(tenant.appID)/revenue"
            let refusals: [(String, String)] = [
                ("", "give the months as query parameters `from` and `to`"),
                ("?from=2026-01", "give the months as query parameters `from` and `to`"),
                ("?from=2026-1&to=2026-02", "`from` must be a month YYYY-MM"),
                ("?from=2026-01&to=2026-13", "`to` must be a month YYYY-MM"),
                ("?from=2026-03&to=2026-02", "`from` (2026-03) is after `to` (2026-02); give from ≤ to"),
                ("?from=2016-01&to=2026-01", "2016-01 to 2026-01 is 121 months; ask for at most 120 at a time")
            ]
            for (query, message) in refusals {
                let refused = try await api.send(.get, base + query, headers: tenant.secret)
                #expect(refused.status == .badRequest && refused.errorCode == "invalid_request", "\(query): \(refused.text)")
                #expect(refused.errorMessage?.contains(message) == true, "\(query): \(refused.text)")
            }
            #expect(try await api.send(.get, base + "?from=2016-02&to=2026-01", headers: tenant.secret).status == .ok)
            let span = "?from=2026-01&to=2026-02"
            #expect(try await api.send(.get, base + span).status == .unauthorized)
            #expect(try await api.send(.get, base + span, headers: tenant.publicHeaders).status == .forbidden)
            #expect(try await api.send(.get, base + span, headers: other.secret).status == .forbidden)
            #expect(try await api.send(.get, base + span, headers: APIClient.admin).status == .unauthorized)
        }
    }
}
