import AppStoreSamples
import Crypto
import Foundation
import HTTPTypes
import LedgerDomain
import LedgerOperators
import LedgerPrivacy
import LedgerServerTestSupport
import LedgerStore
import LedgerWebhooks
import PostgresClient
import Testing

/// Erasing a user (docs/erasure.md): the certificate, the id gone from every table, reads answering `user_erased`,
/// the chain still verifying, and the id named again never stored readable.
@Suite struct ErasureTests {
    static let user = "carol-9d2e71"

    /// Every row of every table of the ledger's schema, as text, that contains `needle` (the id as stored: text, or
    /// JSON-escaped the same way).
    static func tablesHolding(_ needle: String, _ pool: PostgresPool) async throws -> [String] {
        let tables = try await pool.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'ledger' AND table_type = 'BASE TABLE' ORDER BY 1"
        ).map { try $0.decode(String.self, at: 0) }
        var found: [String] = []
        for table in tables {
            let rows = try await pool.query(PostgresQuery(unsafeSQL: "SELECT to_jsonb(t)::text FROM ledger.\(table) t"))
            if try rows.contains(where: { try $0.decode(String.self, at: 0).contains(needle) }) { found.append(table) }
        }
        return found
    }

    /// Records `user` through the API's writes (one with a developer payload, so sealed), and one webhook delivery about
    /// them.
    static func record(_ user: String, _ harness: APIHarness, _ api: APIClient, _ tenant: APIClient.Tenant) async throws {
        let signed = try UserRoutesTests.signed(harness)
        for (product, body) in [
            ("monthly", #"{"type":"auto_renewable","subscription_group":"main","entitlements":["pro"]}"#), ("coins", #"{"type":"consumable"}"#)
        ] {
            #expect(try await api.send(.put, "/v1/apps/\(tenant.appID)/products/\(product)", headers: tenant.secret, json: body).status == .ok)
        }
        let endpoint = try await api.send(
            .post, "/v1/apps/\(tenant.appID)/webhooks", headers: tenant.secret, json: #"{"url":"http://127.0.0.1:9/hook"}"#)
        #expect(endpoint.status == .created, "\(endpoint.text)")
        let upload = try await api.send(
            .post, "/v1/users/\(user)/transactions", headers: tenant.secret,
            json: UserRoutesTests.upload([signed.subscription, signed.coins], renewal: signed.renewal))
        #expect(upload.status == .ok, "\(upload.text)")
        #expect(try await api.send(.post, "/v1/users/\(user)/purchases/9002/consume", headers: tenant.secret).status == .ok)
        let external =
            #"{"payment_id":"ch_1","provider":"paylike","product_id":"coins","product_type":"consumable","#
            + #""price":{"amount_milliunits":990,"currency":"USD"},"purchased_at":"2026-01-02T10:00:00Z","developer_payload":"for \#(user)"}"#
        #expect(try await api.send(.post, "/v1/users/\(user)/external-purchases", headers: tenant.secret, json: external).status == .created)
        #expect(
            try await api.send(.post, "/v1/users/\(user)/consumption-consent", headers: tenant.secret, json: #"{"consented":true}"#).status == .ok)
        #expect(try await SupportGrantTests.give(api, tenant, user: user, tenant.secret, admin: false, days: 7).status == .created)
        try await harness.project()
        try await WebhookFanOut(pool: harness.pool, identities: harness.identities, render: WebhookPayload.render).catchUp()
    }

    @Test(.timeLimit(.minutes(10))) func erasingAUserLeavesTheirIDNowhereAndTheLogStillVerifies() async throws {
        let harness = try await APIHarness.make(now: SupportGrantTests.start)
        try await harness.test { api in
            let tenant = try await api.tenant()
            try await Self.record(Self.user, harness, api, tenant)
            let pseudonym = try #require(try await harness.identities.find(app: tenant.appID, user: Self.user))
            // Stored nowhere in clear, not even in the webhook deliveries (their bodies are sealed under the user's key,
            // their rows name the pseudonym), yet the deliveries API answers them as sent: the id and the body opened.
            #expect(try await Self.tablesHolding(Self.user, harness.pool) == [])
            let endpoint = try #require(
                try await harness.pool.query(
                    "SELECT endpoint_id FROM ledger.webhook_deliveries WHERE app_id = \(tenant.appID) LIMIT 1"
                ).first?.decode(String.self, at: 0))
            let listed = try await api.send(.get, "/v1/apps/\(tenant.appID)/webhooks/\(endpoint)/deliveries", headers: tenant.secret)
            let listedFirst = try #require(listed.array("deliveries").first, "\(listed.text)")
            #expect(listedFirst["app_user_id"] as? String == Self.user, "\(listed.text)")
            let shown = try await api.send(
                .get, "/v1/apps/\(tenant.appID)/webhooks/\(endpoint)/deliveries/\(try #require(listedFirst["delivery_id"] as? String))",
                headers: tenant.secret)
            #expect(shown.status == .ok && shown.text.contains(#""app_user_id":"\#(Self.user)""#) && !shown.text.contains("pii1."), "\(shown.text)")
            let before = try await harness.pool.withConnection { try LogVerifier().verify(on: $0) }

            // Refusals first: no reason, an unknown id, a public key.
            let noReason = try await api.send(.delete, "/v1/users/\(Self.user)", headers: tenant.secret)
            #expect(noReason.status == .badRequest && noReason.text.contains("reason"), "\(noReason.text)")
            let unknown = try await api.send(.delete, "/v1/users/nobody-at-all?reason=ticket-1", headers: tenant.secret)
            #expect(unknown.status == .notFound && unknown.errorCode == "unknown_user", "\(unknown.text)")
            let publicKey = try await api.send(.delete, "/v1/users/\(Self.user)?reason=ticket-1", headers: tenant.publicHeaders)
            #expect(publicKey.status == .unauthorized || publicKey.status == .forbidden, "\(publicKey.text)")

            // Two at once (a retry racing the first): they take turns, and both answer the one certificate.
            async let first = api.send(.delete, "/v1/users/\(Self.user)?reason=ticket-4711", headers: tenant.secret)
            async let second = api.send(.delete, "/v1/users/\(Self.user)?reason=ticket-4711", headers: tenant.secret)
            let (erased, racing) = try await (first, second)
            #expect(erased.status == .ok && racing.status == .ok && racing.text == erased.text, "\(erased.text) \(racing.text)")
            #expect(try await harness.pool.query("SELECT count(*) FROM ledger.erasures").first?.decode(Int64.self, at: 0) == 1)
            let signed = try JSONDecoder().decode(SignedErasureCertificate.self, from: Data(erased.text.utf8))
            #expect(signed.isValid(trusted: APIHarness.digestKey.publicKey))
            #expect(signed.certificate.pseudonym == pseudonym && signed.certificate.appID == tenant.appID)
            #expect(signed.certificate.destroyed == UserErasure.destroyed && signed.certificate.erasedBy.hasPrefix("key:"))
            #expect(signed.certificate.chainEventCount == Int64(before.eventsChecked))
            #expect(!erased.text.contains(Self.user))
            // Again: the same certificate.
            let again = try await api.send(.delete, "/v1/users/\(Self.user)?reason=ticket-4711", headers: tenant.secret)
            #expect(again.status == .ok && again.text == erased.text)

            // Nowhere: not in any table (the deliveries that named it name the pseudonym), not openable.
            #expect(try await Self.tablesHolding(Self.user, harness.pool) == [])
            #expect(try await harness.identities.userID(app: tenant.appID, pseudonym: pseudonym) == nil)
            #expect(try await harness.identities.find(app: tenant.appID, user: Self.user) == nil)
            let deliveries = try await harness.pool.query(
                "SELECT app_user_id, status FROM ledger.webhook_deliveries WHERE app_id = \(tenant.appID)"
            ).map { (try $0.decode(String?.self, at: 0), try $0.decode(String.self, at: 1)) }
            #expect(!deliveries.isEmpty && deliveries.allSatisfy { $0.0 == pseudonym && $0.1 != "pending" }, "\(deliveries)")

            // The log is untouched and still verifies.
            let after = try await harness.pool.withConnection { try LogVerifier().verify(on: $0) }
            #expect(after.isIntact && after.eventsChecked == before.eventsChecked)

            // Reads answer user_erased.
            for path in [
                "/v1/users/\(Self.user)", "/v1/users/\(Self.user)/entitlements", "/v1/users/\(Self.user)/events",
                "/productsStatus?user-id=\(Self.user)"
            ] {
                let read = try await api.send(.get, path, headers: tenant.secret)
                #expect(read.status == .notFound && read.errorCode == "user_erased", "\(path): \(read.text)")
            }

            // Named again (the app uploads for the id once more): recorded under the erased pseudonym, the id not
            // stored again, and still erased to readers.
            let coinsAgain = try harness.signer.sign(
                AppStorePayloads.transaction(id: "9004", original: "9004", product: "coins", type: "Consumable", expires: nil))
            let upload = try await api.send(
                .post, "/v1/users/\(Self.user)/transactions", headers: tenant.secret, json: UserRoutesTests.upload([coinsAgain]))
            #expect(upload.status == .ok, "\(upload.text)")
            try await harness.project()
            #expect(try await Self.tablesHolding(Self.user, harness.pool) == [])
            let owner = try await harness.pool.query(
                "SELECT owner_app_user_id FROM ledger.purchases WHERE app_id = \(tenant.appID) AND original_transaction_id = '9004'"
            ).first?.decode(String?.self, at: 0)
            #expect(owner == pseudonym)
            #expect(try await api.send(.get, "/v1/users/\(Self.user)", headers: tenant.secret).errorCode == "user_erased")
        }
    }

    /// Operators erase through the admin API (admin or support); the operator record names the pseudonym, not the id.
    @Test(.timeLimit(.minutes(10))) func operatorsEraseThroughTheAdminAPIAndTheRecordNamesThePseudonym() async throws {
        let harness = try await APIHarness.make(now: SupportGrantTests.start)
        try await harness.test { api in
            let tenant = try await api.tenant()
            try await Self.record(Self.user, harness, api, tenant)
            let pseudonym = try #require(try await harness.identities.find(app: tenant.appID, user: Self.user))
            let path = "/v1/admin/apps/\(tenant.appID)/users/\(Self.user)?reason=GDPR%20request%2012"
            let finance = try await OperatorTokenTests.token(harness, "fiona", .finance)
            #expect(try await api.send(.delete, path, headers: [.authorization: "Bearer \(finance)"]).status == .forbidden)
            let support = try await OperatorTokenTests.token(harness, "sam", .support)
            let erased = try await api.send(.delete, path, headers: [.authorization: "Bearer \(support)"])
            #expect(erased.status == .ok, "\(erased.text)")
            let signed = try JSONDecoder().decode(SignedErasureCertificate.self, from: Data(erased.text.utf8))
            #expect(signed.certificate.pseudonym == pseudonym && signed.certificate.erasedBy.hasPrefix("op_"))
            let record = try await harness.pool.query(
                "SELECT detail FROM ledger.operator_actions WHERE action = 'api.write' ORDER BY seq DESC LIMIT 1"
            ).first?.decode(String.self, at: 0)
            #expect(record?.contains("user:" + pseudonym) == true && record?.contains(Self.user) == false, "\(record ?? "")")
            #expect(try await Self.tablesHolding(Self.user, harness.pool) == [])

            // Support still sees the user's events, marked erased, named by the pseudonym only.
            let session = try #require(try await ConsoleTests.signIn(api).1)
            let page = try await api.send(.get, "/console/customers/\(tenant.appID)/\(Self.user)", headers: [.cookie: session.cookie])
            #expect(page.status == .ok && page.text.contains("id=erased") && page.text.contains(pseudonym), "\(page.text.suffix(600))")
            #expect(page.text.contains("transaction.purchased") || page.text.contains("subscription."), "the timeline shows the events")
        }
    }
}
