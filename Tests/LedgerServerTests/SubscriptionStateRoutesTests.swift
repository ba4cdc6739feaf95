import AppStoreSamples
import Foundation
import HTTPTypes
import LedgerServerTestSupport
import Testing

/// What `GET /v1/users/{id}` says of a subscription, driven through Apple's signed data over HTTP.
@Suite struct SubscriptionStateRoutesTests {
    static let user = "5f1c8f0e-2b7a-4c1e-9d3a-1b2c3d4e5f60"
    static let day = AppStorePayloads.day
    /// The harness clock's start, in Apple's epoch milliseconds.
    static let now = AppStorePayloads.jan1 + 5 * day

    static func body(_ signedPayload: String) -> String { #"{"signedPayload":"\#(signedPayload)"}"# }

    static func subscription(_ answer: APIResponse) -> [String: Any] {
        (answer.json["subscriptions"] as? [[String: Any]])?.first ?? [:]
    }

    /// Bought, expired, then `EXPIRED` signed half a second after the resubscription: the new period is active.
    @Test func resubscriptionIsActiveWhenTheExpiredNoticeIsSignedAfterIt() async throws {
        let harness = try await APIHarness.make()
        let s = harness.signer
        let old = AppStorePayloads.transaction(
            id: "3000", original: "3000", purchase: "\(Self.now - 60 * Self.day)", originalPurchase: Self.now - 60 * Self.day,
            expires: Self.now - 30 * Self.day, token: Self.user, signed: Self.now - 60 * Self.day, group: "main")
        let resubscribedAt = Self.now - 500
        let new = AppStorePayloads.transaction(
            id: "3001", original: "3000", purchase: "\(resubscribedAt)", originalPurchase: Self.now - 60 * Self.day,
            expires: Self.now + 30 * Self.day, token: Self.user, signed: resubscribedAt, group: "main")
        let renewal = AppStorePayloads.renewalInfo(original: "3000", signed: resubscribedAt)
        let initialBuy = try s.notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: Self.now - 60 * Self.day, transactionJSON: old)
        let expired = try s.notification(type: "EXPIRED", subtype: "VOLUNTARY", signed: Self.now, transactionJSON: old)
        let resubscribe = try s.notification(
            type: "SUBSCRIBED", subtype: "RESUBSCRIBE", signed: Self.now, transactionJSON: new,
            renewalInfoJSON: renewal)
        let upload = #"{"transactions":[{"signed_transaction":"\#(try s.sign(new))","signed_renewal_info":"\#(try s.sign(renewal))"}]}"#
        try await harness.test { api in
            let tenant = try await api.tenant(tokenPolicy: "token_is_app_user_id")
            #expect(
                try await api.send(
                    .put, "/v1/apps/\(tenant.appID)/products/monthly", headers: tenant.secret,
                    json: #"{"type":"auto_renewable","subscription_group":"main","entitlements":["pro"]}"#
                ).status == .ok)
            let url = "/v1/apps/\(tenant.appID)/notifications"
            #expect(try await api.send(.post, url, json: Self.body(initialBuy)).status == .ok)
            #expect(try await api.send(.post, url, json: Self.body(expired)).status == .ok)
            try await harness.project()
            var answer = try await api.send(.get, "/v1/users/\(Self.user)", headers: tenant.secret)
            #expect(Self.subscription(answer)["status"] as? String == "expired")
            // The app uploads the new transaction with its renewal info, then Apple notifies the resubscription.
            #expect(try await api.send(.post, "/v1/users/\(Self.user)/transactions", headers: tenant.secret, json: upload).status == .ok)
            #expect(try await api.send(.post, url, json: Self.body(resubscribe)).status == .ok)
            try await harness.project()
            answer = try await api.send(.get, "/v1/users/\(Self.user)", headers: tenant.secret)
            let sub = Self.subscription(answer)
            #expect(sub["status"] as? String == "active", "\(answer.text)")
            #expect(sub["is_entitled"] as? Bool == true)
            #expect(sub["latest_transaction_id"] as? String == "3001")
            #expect(sub["subscription_group"] as? String == "main")
            let entitlements = answer.json["entitlements"] as? [[String: Any]] ?? []
            #expect(entitlements.first?["id"] as? String == "pro" && entitlements.first?["is_active"] as? Bool == true)
            var headers = tenant.secret
            headers[HTTPField.Name("user-id")!] = Self.user
            #expect(try await api.productsStatus(headers).text.contains(#"{"id":"monthly","status":"active"}"#))

            // Past the new expiry, with no EXPIRED from Apple, it is judged by the clock.
            harness.clock.advance(seconds: 31 * 86_400)
            answer = try await api.send(.get, "/v1/users/\(Self.user)", headers: tenant.secret)
            #expect(Self.subscription(answer)["status"] as? String == "expired", "\(answer.text)")
            #expect(Self.subscription(answer)["expiration_reason"] as? String == "lapsed")
            #expect(Self.subscription(answer)["is_entitled"] as? Bool == false)
            #expect(try await api.productsStatus(headers).text.contains(#"{"id":"monthly","status":"inactive"}"#))
        }
    }

    /// Offers, price-increase consent, intro-offer eligibility, a crossgrade and the newer transaction fields.
    @Test func offersConsentEligibilityAndNewerFieldsAreInTheUserView() async throws {
        let harness = try await APIHarness.make()
        let s = harness.signer
        let commitment =
            #""commitmentInfo":{"billingPeriodNumber":2,"totalBillingPeriods":12,"#
            + #""commitmentExpiresDate":\#(Self.now + 300 * Self.day),"commitmentPrice":12990}"#
        let transaction = AppStorePayloads.transaction(
            id: "4000", original: "4000", purchase: "\(Self.now - Self.day)", originalPurchase: Self.now - Self.day,
            expires: Self.now + 6 * Self.day, token: Self.user, offerType: 1, signed: Self.now - Self.day, group: "main",
            extra: [#""billingPlanType":"MONTHLY_WITH_COMMITMENT""#, commitment])
        let renewal = AppStorePayloads.renewalInfo(original: "4000", signed: Self.now - 1000, extra: [#""priceIncreaseStatus":0"#])
        let crossgrade = try s.notification(
            type: "DID_CHANGE_RENEWAL_PREF", signed: Self.now, transactionJSON: transaction,
            renewalInfoJSON: AppStorePayloads.renewalInfo(original: "4000", next: "monthly_plus", signed: Self.now))
        let upload = #"{"transactions":[{"signed_transaction":"\#(try s.sign(transaction))","signed_renewal_info":"\#(try s.sign(renewal))"}]}"#
        try await harness.test { api in
            let tenant = try await api.tenant(tokenPolicy: "token_is_app_user_id")
            for (product, group) in [("monthly", "main"), ("monthly_plus", "main"), ("annual", "other")] {
                #expect(
                    try await api.send(
                        .put, "/v1/apps/\(tenant.appID)/products/\(product)", headers: tenant.secret,
                        json: #"{"type":"auto_renewable","subscription_group":"\#(group)","entitlements":["pro"]}"#
                    ).status == .ok)
            }
            #expect(try await api.send(.post, "/v1/users/\(Self.user)/transactions", headers: tenant.secret, json: upload).status == .ok)
            try await harness.project()
            var answer = try await api.send(.get, "/v1/users/\(Self.user)", headers: tenant.secret)
            var sub = Self.subscription(answer)
            let offer = sub["offer"] as? [String: Any] ?? [:]
            #expect(offer["type"] as? String == "introductory", "\(answer.text)")
            #expect(offer["payment_mode"] as? String == "FREE_TRIAL" && offer["period"] as? String == "P1W")
            #expect(sub["price_increase"] as? String == "pending")
            #expect(sub["app_transaction_id"] as? String == "704289572311513871")
            #expect(sub["billing_plan_type"] as? String == "MONTHLY_WITH_COMMITMENT")
            let terms = sub["commitment"] as? [String: Any] ?? [:]
            #expect(terms["billing_period_number"] as? Int == 2 && terms["total_billing_periods"] as? Int == 12)
            #expect(terms["price_after_milliunits"] as? Int == 12990 && terms["currency"] as? String == "USD")
            #expect(sub["next_product_id"] is NSNull)
            let eligibility = (answer.json["intro_offer_eligibility"] as? [[String: Any]] ?? [])
                .map { "\($0["subscription_group"] as? String ?? "?")=\(($0["eligible"] as? Bool).map(String.init) ?? "?")" }
            #expect(eligibility == ["main=false", "other=true"], "\(answer.text)")

            #expect(try await api.send(.post, "/v1/apps/\(tenant.appID)/notifications", json: Self.body(crossgrade)).status == .ok)
            try await harness.project()
            answer = try await api.send(.get, "/v1/users/\(Self.user)", headers: tenant.secret)
            sub = Self.subscription(answer)
            #expect(sub["next_product_id"] as? String == "monthly_plus", "\(answer.text)")
            #expect(sub["product_id"] as? String == "monthly")
        }
    }
}
