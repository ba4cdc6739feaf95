import AppStoreSamples
import EmbeddedPostgres
import Foundation
import HTTPTypes
import LedgerDomain
import LedgerPrivacy
import LedgerServerTestSupport
import LedgerStore
import LedgerWebhooks
import PostgresClient
import PostgresTestSupport
import Testing

/// The personal fields beyond the id (docs/erasure.md, "Sealed fields"): the `appAccountToken`, developer payloads and
/// Apple's signed payloads are stored sealed, answered opened while the user exists, and gone from a `pg_dump` of the
/// whole database in every encoding the ledger used once the user is erased.
@Suite struct SealedFieldsErasureTests {
    /// Under `token_is_app_user_id` the token is the user id itself, as Apple requires it: a UUID.
    static let user = "3f1c9a52-7a1e-4c1b-9d0e-5b2a7c8e4f10"
    static let payload = "order-secret-77-of-carol"

    /// `signedTransactionInfo` of a notification's signed body.
    static func signedTransaction(ofNotification jws: String) throws -> String {
        var segment = String(jws.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        segment += String(repeating: "=", count: (4 - segment.count % 4) % 4)
        let object = try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: segment))) as? [String: Any]
        return try #require((object?["data"] as? [String: Any])?["signedTransactionInfo"] as? String)
    }

    @Test(.timeLimit(.minutes(10))) func sealedFieldsAreAnsweredWhileTheUserExistsAndGoneFromADumpAfterErasure() async throws {
        let url = try await TestDatabase.makeDatabase(prefix: "sealed")
        let harness = try await APIHarness.make(database: url, now: SupportGrantTests.start)
        try await harness.test { api in
            let tenant = try await api.tenant(tokenPolicy: "token_is_app_user_id")
            for (product, body) in [
                ("monthly", #"{"type":"auto_renewable","subscription_group":"main","entitlements":["pro"]}"#), ("coins", #"{"type":"consumable"}"#)
            ] {
                #expect(try await api.send(.put, "/v1/apps/\(tenant.appID)/products/\(product)", headers: tenant.secret, json: body).status == .ok)
            }
            // A webhook endpoint (its deliveries name the user by id in their bodies), a notification whose transaction
            // carries the token (so names the user), a StoreKit 2 upload of a consumable with the token, and an external
            // consumable with a developer payload.
            let endpoint = try await api.send(
                .post, "/v1/apps/\(tenant.appID)/webhooks", headers: tenant.secret, json: #"{"url":"http://127.0.0.1:9/hook"}"#)
            #expect(endpoint.status == .created, "\(endpoint.text)")
            let at = AppStorePayloads.jan1 + 1000
            let notification = try harness.signer.notification(
                type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: at,
                transactionJSON: AppStorePayloads.transaction(
                    id: "801", original: "800", purchase: "\(at - 10)", expires: at + 31 * AppStorePayloads.day, token: Self.user, signed: at))
            let jws = try Self.signedTransaction(ofNotification: notification)
            #expect(
                try await api.send(.post, "/v1/apps/\(tenant.appID)/notifications", json: #"{"signedPayload":"\#(notification)"}"#).status == .ok)
            let coins = try harness.signer.sign(
                AppStorePayloads.transaction(id: "9002", original: "9002", product: "coins", type: "Consumable", expires: nil, token: Self.user))
            let upload = try await api.send(
                .post, "/v1/users/\(Self.user)/transactions", headers: tenant.secret, json: UserRoutesTests.upload([coins]))
            #expect(upload.status == .ok, "\(upload.text)")
            let external =
                #"{"payment_id":"ch_1","provider":"paylike","product_id":"coins","product_type":"consumable","#
                + #""price":{"amount_milliunits":990,"currency":"USD"},"purchased_at":"2026-01-02T10:00:00Z","#
                + #""developer_payload":"\#(Self.payload)"}"#
            #expect(try await api.send(.post, "/v1/users/\(Self.user)/external-purchases", headers: tenant.secret, json: external).status == .created)
            // And the seed's receipt upload.
            let receipt = try harness.signer.receipt(purchases: [ReceiptBuilder.inAppPurchase(product: "lifetime", transactionId: "9100")])
            let (uploaded, _) = try await api.uploadReceipt(tenant, user: Self.user, receipt: receipt)
            #expect(uploaded.status == .ok, "\(uploaded.text)")
            try await harness.project()
            #expect(try await WebhookFanOut(pool: harness.pool, identities: harness.identities, render: WebhookPayload.render).catchUp() > 0)
            let deliveries = try await harness.pool.query("SELECT payload FROM ledger.webhook_deliveries WHERE app_user_id IS NOT NULL").map {
                try $0.decode(String.self, at: 0)
            }
            #expect(!deliveries.isEmpty && deliveries.allSatisfy { $0.hasPrefix("pii1.dk_") }, "bodies naming the user are sealed: \(deliveries)")

            // While the user exists: answered opened, stored sealed (nowhere in clear, not even before erasure).
            let unconsumed = try await api.send(.get, "/v1/users/\(Self.user)/unconsumed", headers: tenant.secret)
            #expect(unconsumed.status == .ok)
            #expect(unconsumed.text.contains(#""developer_payload":"\#(Self.user)""#), "\(unconsumed.text)")
            #expect(unconsumed.text.contains(#""developer_payload":"\#(Self.payload)""#), "\(unconsumed.text)")
            // A consumption, then the search: the id, the payload, the JWS and the receipt are nowhere in clear.
            #expect(try await api.send(.post, "/v1/users/\(Self.user)/purchases/9002/consume", headers: tenant.secret).status == .ok)
            let secrets = [Self.user, Self.payload, receipt] + [jws, coins].flatMap { [$0, String($0.split(separator: ".")[1])] }
            let before = try DatabaseDump.text(url)
            #expect(before.contains("pii1."), "the dump has the sealed fields")
            for secret in secrets {
                #expect(!DatabaseDump.encodings(secret).contains(where: before.contains), "before erasure: \(secret.prefix(40))")
            }
            let sealed = try await harness.pool.query(
                """
                SELECT payload->>'rawJSON' FROM ledger.events WHERE app_id = \(tenant.appID) AND event_type = 'appstore.notification'
                UNION ALL SELECT developer_payload FROM ledger.purchases WHERE app_id = \(tenant.appID) AND developer_payload IS NOT NULL
                """
            ).map { try $0.decode(String.self, at: 0) }
            #expect(sealed.count == 3 && sealed.allSatisfy { $0.hasPrefix("pii1.dk_") }, "\(sealed)")
            let opened = try await harness.identities.fields.open(app: tenant.appID, sealed)
            #expect(opened.count == 3 && opened.values.contains { $0.contains(jws) }, "the notification's JSON opens whole")

            // January's invoice (the external purchase made the user a paying user), finalized before the erasure.
            let finalized = try await api.send(
                .post, "/v1/admin/invoices", headers: APIClient.admin, json: #"{"month":"2026-01","account_id":"\#(tenant.accountID)"}"#)
            let invoice = try #require(finalized.array("results").first?["invoice"] as? [String: Any], "\(finalized.text)")
            let invoiceID = try #require(invoice["id"] as? String)
            #expect(finalized.text.contains(#""paying_users":1"#), "\(finalized.text)")

            // Support reads the timeline with the sealed fields opened.
            let session = try #require(try await ConsoleTests.signIn(api).1)
            let console = "/console/customers/\(tenant.appID)/\(Self.user)"
            let page = try await api.send(.get, console, headers: [.cookie: session.cookie])
            #expect(page.status == .ok && page.text.contains(Self.payload) && !page.text.contains("pii1."), "\(page.text.suffix(800))")

            let erased = try await api.send(.delete, "/v1/users/\(Self.user)?reason=ticket-9", headers: tenant.secret)
            #expect(erased.status == .ok, "\(erased.text)")
            let certificate = try JSONDecoder().decode(SignedErasureCertificate.self, from: Data(erased.text.utf8)).certificate
            #expect(certificate.destroyed == ["app_account_token", "app_user_id", "developer_payload", "signed_payloads"])
            #expect(try await harness.identities.fields.open(app: tenant.appID, sealed).isEmpty, "every sealed field's key is destroyed")
            let erasedPage = try await api.send(.get, console, headers: [.cookie: session.cookie])
            #expect(erasedPage.status == .ok && erasedPage.text.contains("(erased)") && !erasedPage.text.contains(Self.payload))
            #expect(!erasedPage.text.contains("pii1."), "\(erasedPage.text.suffix(800))")

            // A renewal about the erased user's subscription: recorded, its verbatim JSON never stored readable.
            let renewedAt = at + 31 * AppStorePayloads.day
            let renewal = try harness.signer.notification(
                type: "DID_RENEW", signed: renewedAt,
                transactionJSON: AppStorePayloads.transaction(
                    id: "802", original: "800", purchase: "\(renewedAt - 10)", expires: renewedAt + 31 * AppStorePayloads.day, token: Self.user,
                    signed: renewedAt))
            #expect(try await api.send(.post, "/v1/apps/\(tenant.appID)/notifications", json: #"{"signedPayload":"\#(renewal)"}"#).status == .ok)
            try await harness.project()
            let renewalJSON = try await harness.pool.query(
                """
                SELECT payload->>'rawJSON' FROM ledger.events WHERE app_id = \(tenant.appID) AND event_type = 'appstore.notification'
                ORDER BY position DESC LIMIT 1
                """
            ).first?.decode(String.self, at: 0)
            #expect(renewalJSON == SealedFields.destroyed)
            let renewalJWS = try Self.signedTransaction(ofNotification: renewal)

            let after = try DatabaseDump.text(url)
            for secret in secrets + [renewalJWS, String(renewalJWS.split(separator: ".")[1])] {
                #expect(!DatabaseDump.encodings(secret).contains(where: after.contains), "after erasure: \(secret.prefix(40))")
            }
            let verified = try await harness.pool.withConnection { try LogVerifier().verify(on: $0) }
            #expect(verified.isIntact)
            // The invoice reproduces from the log, and finalized again (void and replace) it has the same totals.
            let reproduction = try await api.send(.get, "/v1/admin/invoices/\(invoiceID)/reproduction", headers: APIClient.admin)
            #expect(reproduction.json["reproduced"] as? Bool == true, "\(reproduction.text)")
            let replaced = try await api.send(
                .post, "/v1/admin/invoices/\(invoiceID)/void", headers: APIClient.admin, json: #"{"reason":"re-finalized after an erasure"}"#)
            let replacement = try #require(replaced.json["replacement"] as? [String: Any], "\(replaced.text)")
            #expect(replacement["total"] as? String == invoice["total"] as? String && replacement["id"] as? String != invoiceID)
            #expect(replaced.text.contains(#""paying_users":1"#), "\(replaced.text)")
        }
    }

    /// A developer payload that looks sealed is sealed like any other, and answered as sent.
    @Test func aPayloadThatLooksSealedIsSealedAndAnsweredAsSent() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let tenant = try await api.tenant()
            let lookalike = "pii1.dk_00.AAAA"
            let external =
                #"{"payment_id":"ch_9","provider":"paylike","product_id":"coins","product_type":"consumable","#
                + #""price":{"amount_milliunits":990,"currency":"USD"},"purchased_at":"2026-01-02T10:00:00Z","#
                + #""developer_payload":"\#(lookalike)"}"#
            #expect(try await api.send(.post, "/v1/users/dana/external-purchases", headers: tenant.secret, json: external).status == .created)
            try await harness.project()
            let stored = try await harness.pool.query(
                "SELECT developer_payload FROM ledger.purchases WHERE app_id = \(tenant.appID)"
            ).first?.decode(String.self, at: 0)
            #expect(stored != lookalike && stored?.hasPrefix("pii1.dk_") == true)
            let unconsumed = try await api.send(.get, "/v1/users/dana/unconsumed", headers: tenant.secret)
            #expect(unconsumed.text.contains(#""developer_payload":"\#(lookalike)""#), "\(unconsumed.text)")
        }
    }

    /// A purchase restored to another user still carries its first owner's token (here their id): erasing the first
    /// owner destroys its key, though it is someone else's now; the new owner keeps the purchase and its entitlement.
    @Test func aPurchaseMovedToAnotherUserIsReachedByItsFirstOwnersErasure() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let tenant = try await api.tenant(tokenPolicy: "token_is_app_user_id")
            let lifetime = try harness.signer.sign(
                AppStorePayloads.transaction(
                    id: "9003", original: "9003", product: "lifetime", type: "Non-Consumable", expires: nil, token: Self.user))
            let bought = try await api.send(
                .post, "/v1/users/\(Self.user)/transactions", headers: tenant.secret, json: UserRoutesTests.upload([lifetime]))
            #expect(bought.status == .ok, "\(bought.text)")
            try await harness.project()
            let moved = try await api.send(
                .post, "/v1/users/bob/restore", headers: tenant.secret, json: #"{"signed_transactions":["\#(lifetime)"]}"#)
            #expect(moved.status == .ok, "\(moved.text)")
            try await harness.project()
            #expect(try await api.send(.get, "/v1/users/\(Self.user)", headers: tenant.secret).array("one_time_purchases").isEmpty)

            let erased = try await api.send(.delete, "/v1/users/\(Self.user)?reason=ticket-12", headers: tenant.secret)
            #expect(erased.status == .ok, "\(erased.text)")
            let key = try await harness.pool.query(
                "SELECT sealed IS NULL FROM ledger.data_keys WHERE app_id = \(tenant.appID) AND subject = 'purchase:9003'"
            ).first?.decode(Bool.self, at: 0)
            #expect(key == true, "the moved purchase's key is destroyed with its first owner's")
            let payload = try #require(
                try await harness.pool.query("SELECT developer_payload FROM ledger.purchases WHERE app_id = \(tenant.appID)").first?
                    .decode(String?.self, at: 0))
            #expect(try await harness.identities.fields.open(app: tenant.appID, [payload]).isEmpty, "the first owner's token no longer opens")
            let bob = try await api.send(.get, "/v1/users/bob", headers: tenant.secret)
            #expect(bob.status == .ok && bob.array("one_time_purchases").count == 1, "\(bob.text)")
        }
    }
}
