import AppStoreSamples
import Foundation
import HTTPTypes
import LedgerPrivacy
import LedgerServerTestSupport
import Testing

/// The user's consent to consumption answers, recorded by the app (public key, its own user) and by the backend (secret
/// key), shown in the user's history; and the app's refund policy, set by the operators.
@Suite struct ConsumptionConsentRoutesTests {
    @Test func theAppAndTheBackendRecordConsentInTheUsersHistory() async throws {
        let harness = try await APIHarness.make()
        let receipt = try harness.signer.receipt(purchases: [ReceiptBuilder.inAppPurchase(product: "lifetime", transactionId: "9100")])
        try await harness.test { api in
            let tenant = try await api.tenant()
            let (_, cookie) = try await api.uploadReceipt(tenant, user: "alice", receipt: receipt)
            let fromApp = try await api.send(
                .post, "/v1/users/alice/consumption-consent", headers: tenant.publicHeaders.with(cookie: cookie),
                json: #"{"consented":true}"#)
            #expect(fromApp.status == .ok, "\(fromApp.text)")
            #expect(fromApp.json["consented"] as? Bool == true && fromApp.string("source") == "app" && fromApp.string("app_user_id") == "alice")
            let withdrawn = try await api.send(.post, "/v1/users/alice/consumption-consent", headers: tenant.secret, json: #"{"consented":false}"#)
            #expect(withdrawn.status == .ok && withdrawn.string("source") == "backend" && withdrawn.json["consented"] as? Bool == false)

            // Both in alice's history, in order, with who recorded them.
            try await harness.project()
            let events = try await api.send(.get, "/v1/users/alice/events", headers: tenant.secret).array("events")
                .filter { $0["type"] as? String == "user.consumption_consent_recorded" }
            #expect(events.map { ($0["payload"] as? [String: Any])?["consented"] as? Bool } == [true, false])
            #expect(events.map { ($0["payload"] as? [String: Any])?["source"] as? String } == ["app", "backend"])
            // The timeline shows the log as stored: the user's stream is named by their pseudonym, never their id.
            let alice = try #require(try await harness.identities.find(app: tenant.appID, user: "alice"))
            #expect(alice.hasPrefix("usr_") && events.allSatisfy { $0["stream"] as? String == "user:" + alice })
            // A user with no purchase has a history too once they answered.
            _ = try await api.send(.post, "/v1/users/bob/consumption-consent", headers: tenant.secret, json: #"{"consented":true}"#)
            #expect(try await api.send(.get, "/v1/users/bob/events", headers: tenant.secret).array("events").count == 1)

            // The public key reaches only its cookie's user, and a body that says nothing useful is refused with what to fix.
            let other = try await api.send(
                .post, "/v1/users/bob/consumption-consent", headers: tenant.publicHeaders.with(cookie: cookie),
                json: #"{"consented":true}"#)
            #expect(other.status == .forbidden)
            for body in [#"{}"#, #"{"consented":"yes"}"#, #"{"consented":true,"when":"now"}"#, #"{"consented":null}"#] {
                let refused = try await api.send(.post, "/v1/users/alice/consumption-consent", headers: tenant.secret, json: body)
                #expect(refused.status == .badRequest, "\(body): \(refused.text)")
                #expect(refused.text.contains("consented") || refused.text.contains("when"), "\(body): \(refused.text)")
            }
        }
    }

    @Test func theRefundPolicyIsSetAtCreationAndChangedByTheOperators() async throws {
        try await APIHarness.make().test { api in
            let tenant = try await api.tenant()
            let app = try await api.send(.get, "/v1/admin/apps/\(tenant.appID)", headers: APIClient.admin)
            #expect(app.string("refund_policy") == "by_consumption")  // the default
            let changed = try await api.send(
                .put, "/v1/admin/apps/\(tenant.appID)/refund-policy", headers: APIClient.admin,
                json: #"{"refund_policy":"always_grant"}"#)
            #expect(changed.status == .ok && changed.string("refund_policy") == "always_grant", "\(changed.text)")
            #expect(try await api.send(.get, "/v1/admin/apps/\(tenant.appID)", headers: APIClient.admin).string("refund_policy") == "always_grant")

            let wrong = try await api.send(
                .put, "/v1/admin/apps/\(tenant.appID)/refund-policy", headers: APIClient.admin,
                json: #"{"refund_policy":"generous"}"#)
            #expect(wrong.status == .badRequest && wrong.text.contains("by_consumption, always_grant, always_decline, no_preference"))
            #expect(
                try await api.send(
                    .put, "/v1/admin/apps/app_none/refund-policy", headers: APIClient.admin,
                    json: #"{"refund_policy":"always_grant"}"#
                ).status == .notFound)
            #expect(
                try await api.send(
                    .put, "/v1/admin/apps/\(tenant.appID)/refund-policy", headers: tenant.secret,
                    json: #"{"refund_policy":"always_grant"}"#
                ).status == .unauthorized)

            let created = try await api.send(
                .post, "/v1/admin/apps", headers: APIClient.admin,
                json: """
                    {"name":"Other","account_id":"\(tenant.accountID)","bundle_id":"com.example.other","refund_policy":"no_preference"}
                    """)
            #expect(created.status == .created && created.string("refund_policy") == "no_preference", "\(created.text)")
        }
    }
}
