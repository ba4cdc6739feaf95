import AppStoreSamples
import Foundation
import HTTPTypes
import LedgerServerTestSupport
import Testing

@Suite struct UserRoutesTests {
    static let jan1 = AppStorePayloads.jan1
    static let day = AppStorePayloads.day

    struct Signed {
        var subscription: String
        var renewal: String
        var coins: String
        var lifetime: String
    }

    static func signed(_ harness: APIHarness) throws -> Signed {
        let s = harness.signer
        return Signed(
            subscription: try s.sign(AppStorePayloads.transaction(id: "9001", original: "9001")),
            renewal: try s.sign(AppStorePayloads.renewalInfo(original: "9001", autoRenew: 0)),
            coins: try s.sign(AppStorePayloads.transaction(id: "9002", original: "9002", product: "coins", type: "Consumable", expires: nil)),
            lifetime: try s.sign(
                AppStorePayloads.transaction(
                    id: "9003", original: "9003", product: "lifetime", type: "Non-Consumable",
                    expires: nil)))
    }

    static func upload(_ signed: [String], renewal: String? = nil) -> String {
        let items = signed.enumerated().map { index, jws in
            index == 0 && renewal != nil
                ? #"{"signed_transaction":"\#(jws)","signed_renewal_info":"\#(renewal!)"}"#
                : #"{"signed_transaction":"\#(jws)"}"#
        }
        return #"{"transactions":[\#(items.joined(separator: ","))]}"#
    }

    @Test func uploadedTransactionsShowInTheUserViewsAndConsumeWorksOnce() async throws {
        let harness = try await APIHarness.make()
        let signed = try Self.signed(harness)
        try await harness.test { api in
            let tenant = try await api.tenant()
            _ = try await api.send(
                .put, "/v1/apps/\(tenant.appID)/products/monthly", headers: tenant.secret,
                json: #"{"type":"auto_renewable","subscription_group":"main","entitlements":["pro"]}"#)
            let upload = try await api.send(
                .post, "/v1/users/alice/transactions", headers: tenant.secret,
                json: Self.upload([signed.subscription, signed.coins], renewal: signed.renewal))
            #expect(upload.status == .ok, "\(upload.text)")
            #expect(upload.int("recorded") == 3)  // subscription, its auto-renew status, coins
            try await harness.project()

            let user = try await api.send(.get, "/v1/users/alice", headers: tenant.secret)
            #expect(user.status == .ok)
            #expect(user.array("subscriptions").map { $0["original_transaction_id"] as? String } == ["9001"])
            #expect(user.array("subscriptions").first?["status"] as? String == "active")
            #expect(user.array("subscriptions").first?["auto_renew"] as? Bool == false)
            #expect(user.array("entitlements").map { $0["id"] as? String } == ["pro"])
            #expect(user.array("one_time_purchases").map { $0["product_id"] as? String } == ["coins"])
            #expect(user.array("unconsumed").map { $0["transaction_id"] as? String } == ["9002"])
            let entitlements = try await api.send(.get, "/v1/users/alice/entitlements", headers: tenant.secret)
            #expect(entitlements.array("entitlements").first?["is_active"] as? Bool == true)

            let consume = try await api.send(.post, "/v1/users/alice/purchases/9002/consume", headers: tenant.secret)
            #expect(consume.status == .ok, "\(consume.text)")
            let twice = try await api.send(.post, "/v1/users/alice/purchases/9002/consume", headers: tenant.secret)
            #expect(twice.status == .conflict)
            #expect(twice.errorCode == "already_consumed")
            #expect(try await api.send(.post, "/v1/users/bob/purchases/9002/consume", headers: tenant.secret).errorCode == "belongs_to_another_user")
            #expect(try await api.send(.post, "/v1/users/alice/purchases/9001/consume", headers: tenant.secret).errorCode == "not_consumable")
            #expect(try await api.send(.post, "/v1/users/alice/purchases/nope/consume", headers: tenant.secret).errorCode == "unknown_purchase")
            try await harness.project()
            #expect(try await api.send(.get, "/v1/users/alice/unconsumed", headers: tenant.secret).array("unconsumed").isEmpty)

            // The audit timeline pages through every event of the user's purchases, in log order.
            let first = try await api.send(.get, "/v1/users/alice/events?limit=2", headers: tenant.secret)
            #expect(first.array("events").count == 2)
            let next = try #require(first.json["next_after"] as? Int)
            let rest = try await api.send(.get, "/v1/users/alice/events?after=\(next)&limit=1000", headers: tenant.secret)
            let positions = (first.array("events") + rest.array("events")).compactMap { $0["position"] as? Int }
            #expect(positions == positions.sorted() && Set(positions).count == positions.count)
            #expect(rest.json["next_after"] is NSNull)
            #expect((first.array("events") + rest.array("events")).contains { $0["type"] as? String == "purchase.consumed" })
            #expect(try await api.send(.get, "/v1/users/alice/events?limit=0", headers: tenant.secret).status == .badRequest)
            #expect(try await api.send(.get, "/v1/users/alice/events?after=-1", headers: tenant.secret).status == .badRequest)
            #expect(try await api.send(.get, "/v1/users/alice/events?limit=abc", headers: tenant.secret).status == .badRequest)

            // Forged uploads are refused and record nothing.
            let forged = try await api.send(
                .post, "/v1/users/alice/transactions", headers: tenant.secret,
                json: Self.upload([JWSSigner.tamper(signed.lifetime, segment: 1)]))
            #expect(forged.errorCode == "invalid_signature")
            #expect(forged.errorMessage?.hasPrefix("transactions[0].signed_transaction") == true)
            #expect(
                try await api.send(
                    .post, "/v1/users/alice/transactions", headers: tenant.secret,
                    json: #"{"transactions":[]}"#
                ).status == .badRequest)
        }
    }

    @Test func restoreFollowsTheAppsTransferPolicy() async throws {
        let harness = try await APIHarness.make()
        let signed = try Self.signed(harness)
        try await harness.test { api in
            let keep = try await api.tenant(transferPolicy: "keep_and_refuse")
            let transfer = try await api.tenant(transferPolicy: "transfer")
            for tenant in [keep, transfer] {
                _ = try await api.send(.post, "/v1/users/alice/transactions", headers: tenant.secret, json: Self.upload([signed.lifetime]))
            }
            try await harness.project()
            let body = #"{"signed_transactions":["\#(signed.lifetime)"]}"#
            let refused = try await api.send(.post, "/v1/users/bob/restore", headers: keep.secret, json: body)
            #expect(refused.status == .conflict, "\(refused.text)")
            #expect(refused.errorCode == "restore_refused")
            let conflicts = (refused.json["error"] as? [String: Any])?["conflicts"] as? [[String: Any]]
            #expect(conflicts?.first?["owner_user_id"] as? String == "alice")

            let moved = try await api.send(.post, "/v1/users/bob/restore", headers: transfer.secret, json: body)
            #expect(moved.status == .ok, "\(moved.text)")
            #expect(moved.json["restored"] as? [String] == ["9003"])
            try await harness.project()
            #expect(try await api.send(.get, "/v1/users/bob", headers: transfer.secret).array("one_time_purchases").count == 1)
            #expect(try await api.send(.get, "/v1/users/alice", headers: transfer.secret).array("one_time_purchases").isEmpty)
            // Named ids are for the backend; nothing to restore is a 400.
            #expect(
                try await api.send(
                    .post, "/v1/users/bob/restore", headers: transfer.secret,
                    json: #"{"original_transaction_ids":["9003"]}"#
                ).status == .ok)
            #expect(try await api.send(.post, "/v1/users/bob/restore", headers: transfer.secret, json: "{}").status == .badRequest)
        }
    }

    @Test func externalPurchasesAreRecordedOncePerPaymentID() async throws {
        try await APIHarness.make().test { api in
            let tenant = try await api.tenant()
            let body =
                #"{"payment_id":"ch_1","provider":"paylike","product_id":"lifetime","product_type":"non_consumable","#
                + #""price":{"amount_milliunits":9990,"currency":"USD"},"purchased_at":"2026-01-02T10:00:00Z"}"#
            let first = try await api.send(.post, "/v1/users/carol/external-purchases", headers: tenant.secret, json: body)
            #expect(first.status == .created, "\(first.text)")
            let again = try await api.send(.post, "/v1/users/carol/external-purchases", headers: tenant.secret, json: body)
            #expect(again.status == .ok)
            #expect(again.json["recorded"] as? Bool == false)
            let bad = body.replacingOccurrences(of: "USD", with: "dollars")
            #expect(try await api.send(.post, "/v1/users/carol/external-purchases", headers: tenant.secret, json: bad).status == .badRequest)
            let badDate = body.replacingOccurrences(of: "2026-01-02T10:00:00Z", with: "yesterday")
            #expect(try await api.send(.post, "/v1/users/carol/external-purchases", headers: tenant.secret, json: badDate).status == .badRequest)
            // Card payments are recorded by the developer's server only.
            #expect(try await api.send(.post, "/v1/users/carol/external-purchases", headers: tenant.publicHeaders, json: body).status == .forbidden)
        }
    }

    /// A user the ledger holds nothing for answers 200 with empty lists, as before, and `known: false`, so that a
    /// mistyped id is told apart from a user whose purchases give nothing now (here: a consumed consumable).
    @Test func anUnknownUserIsToldApartFromOneWhoOwnsNothingActive() async throws {
        let harness = try await APIHarness.make()
        let signed = try Self.signed(harness)
        try await harness.test { api in
            let tenant = try await api.tenant()
            let other = try await api.tenant()
            _ = try await api.send(.post, "/v1/users/alice/transactions", headers: tenant.secret, json: Self.upload([signed.coins]))
            try await harness.project()
            #expect(try await api.send(.post, "/v1/users/alice/purchases/9002/consume", headers: tenant.secret).status == .ok)
            try await harness.project()
            for suffix in ["", "/entitlements", "/unconsumed"] {
                let alice = try await api.send(.get, "/v1/users/alice\(suffix)", headers: tenant.secret)
                #expect(alice.status == .ok && alice.json["known"] as? Bool == true, "alice\(suffix): \(alice.text)")
                #expect(alice.array("unconsumed").isEmpty && alice.array("entitlements").isEmpty, "alice\(suffix): \(alice.text)")
                // A mistyped id, and alice as another app sees her: nothing, and said so.
                for (user, headers) in [("alcie", tenant.secret), ("alice", other.secret)] {
                    let unknown = try await api.send(.get, "/v1/users/\(user)\(suffix)", headers: headers)
                    #expect(unknown.status == .ok, "\(user)\(suffix): \(unknown.text)")
                    #expect(unknown.json["known"] as? Bool == false, "\(user)\(suffix): \(unknown.text)")
                    #expect(unknown.string("app_user_id") == user)
                }
            }
            let user = try await api.send(.get, "/v1/users/alice", headers: tenant.secret)
            #expect(user.array("one_time_purchases").map { $0["consumed_at"] is NSNull } == [false], "\(user.text)")
        }
    }

    @Test func productsNeedTheSecretKeyOfTheirOwnApp() async throws {
        try await APIHarness.make().test { api in
            let a = try await api.tenant()
            let b = try await api.tenant()
            let body = #"{"type":"consumable","entitlements":[]}"#
            let put = try await api.send(.put, "/v1/apps/\(a.appID)/products/coins", headers: a.secret, json: body)
            #expect(put.status == .ok)
            #expect(put.string("type") == "consumable")
            #expect(put.json["subscription_group"] is NSNull)
            #expect(try await api.send(.put, "/v1/apps/\(a.appID)/products/coins", headers: b.secret, json: body).status == .forbidden)
            #expect(try await api.send(.put, "/v1/apps/\(a.appID)/products/coins", headers: a.publicHeaders, json: body).status == .forbidden)
            #expect(try await api.send(.put, "/v1/apps/\(a.appID)/products/coins", json: body).status == .unauthorized)
            #expect(try await api.send(.get, "/v1/apps/\(a.appID)/products", headers: b.secret).status == .forbidden)
            #expect(try await api.send(.put, "/v1/apps/\(a.appID)/products/coins", headers: a.secret, json: #"{"type":"gem"}"#).status == .badRequest)
            #expect(
                try await api.send(
                    .put, "/v1/apps/\(a.appID)/products/coins", headers: a.secret,
                    json: #"{"type":"consumable","entitlements":["x","x"]}"#
                ).status == .badRequest)
            #expect(try await api.send(.get, "/v1/apps/\(b.appID)/products", headers: b.secret).array("products").isEmpty)
        }
    }

    /// No key reaches another app's data, and a public key reaches only its cookie's user, on every user endpoint.
    @Test func isolationOnEveryUserEndpoint() async throws {
        let harness = try await APIHarness.make()
        let signed = try Self.signed(harness)
        let receipt = try harness.signer.receipt(purchases: [ReceiptBuilder.inAppPurchase(product: "lifetime", transactionId: "9100")])
        try await harness.test { api in
            let a = try await api.tenant()
            let b = try await api.tenant()
            _ = try await api.send(.post, "/v1/users/alice/transactions", headers: a.secret, json: Self.upload([signed.lifetime, signed.coins]))
            let (_, aliceCookie) = try await api.uploadReceipt(a, user: "alice", receipt: receipt)
            try await harness.project()
            let endpoints: [(HTTPRequest.Method, String, String?)] = [
                (.get, "/v1/users/{u}", nil), (.get, "/v1/users/{u}/entitlements", nil), (.get, "/v1/users/{u}/unconsumed", nil),
                (.get, "/v1/users/{u}/events", nil), (.post, "/v1/users/{u}/transactions", Self.upload([signed.lifetime])),
                (.post, "/v1/users/{u}/restore", #"{"signed_transactions":["\#(signed.lifetime)"]}"#),
                (.post, "/v1/users/{u}/purchases/9002/consume", nil),
                (
                    .post, "/v1/users/{u}/external-purchases",
                    #"{"payment_id":"p","provider":"x","product_id":"y","product_type":"consumable","price":{"amount_milliunits":1,"#
                        + #""currency":"USD"},"purchased_at":"2026-01-02T10:00:00Z"}"#
                )
            ]
            for (method, template, body) in endpoints {
                let alice = template.replacingOccurrences(of: "{u}", with: "alice")
                let bob = template.replacingOccurrences(of: "{u}", with: "bob")
                #expect(try await api.send(method, alice, json: body).status == .unauthorized, "\(alice) without a key")
                #expect(try await api.send(method, alice, headers: APIClient.bearer("sk_forged"), json: body).status == .unauthorized)
                // Card payments need the secret key whatever the cookie (403); elsewhere the cookie is missing (401).
                let publicRefusal: HTTPResponse.Status = template.contains("external") ? .forbidden : .unauthorized
                #expect(
                    try await api.send(method, alice, headers: a.publicHeaders, json: body).status == publicRefusal,
                    "\(alice) public key without cookie")
                let other = try await api.send(method, bob, headers: a.publicHeaders.with(cookie: aliceCookie), json: body)
                #expect(other.status == .forbidden, "\(bob) with alice's cookie: \(other.text)")
                // Alice's cookie for app A with app B's public key: refused.
                #expect(try await api.send(method, alice, headers: b.publicHeaders.with(cookie: aliceCookie), json: body).status == publicRefusal)
            }
            // App B's secret key sees none of app A's alice.
            let seenByB = try await api.send(.get, "/v1/users/alice", headers: b.secret)
            #expect(seenByB.array("one_time_purchases").isEmpty && seenByB.array("unconsumed").isEmpty)
            #expect(try await api.send(.get, "/v1/users/alice/events", headers: b.secret).array("events").isEmpty)
            #expect(try await api.send(.post, "/v1/users/alice/purchases/9002/consume", headers: b.secret).errorCode == "unknown_purchase")
            // While alice's own public key and cookie read her data.
            let own = try await api.send(.get, "/v1/users/alice", headers: a.publicHeaders.with(cookie: aliceCookie))
            #expect(own.status == .ok)
            #expect(own.array("one_time_purchases").count == 3)
        }
    }
}
