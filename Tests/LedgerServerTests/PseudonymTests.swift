import AppStoreSamples
import Foundation
import HTTPTypes
import LedgerDomain
import LedgerPrivacy
import LedgerServerTestSupport
import LedgerStore
import LedgerTenancy
import PostgresClient
import PostgresTestSupport
import Testing

/// The log and the read models name users by pseudonym (docs/erasure.md): a user recorded through the API's writes
/// leaves their id in none of them, every read still finds them by it, and a user the log named by id before
/// pseudonyms existed is adopted with their id as pseudonym.
@Suite struct PseudonymTests {
    static let user = "alice-4f0c9b1e"

    /// Every stored text of the log and the per-user read models that holds `needle`, as `table: text`.
    static func holding(_ needle: String, _ pool: PostgresPool) async throws -> [String] {
        let rows = try await pool.query(
            """
            SELECT 'events: ' || stream_id || ' ' || idempotency_key || ' ' || payload::text || ' ' || metadata::text FROM ledger.events
            UNION ALL SELECT 'subscriptions: ' || to_jsonb(t)::text FROM ledger.subscriptions t
            UNION ALL SELECT 'purchases: ' || to_jsonb(t)::text FROM ledger.purchases t
            UNION ALL SELECT 'paying_users: ' || to_jsonb(t)::text FROM ledger.paying_users t
            UNION ALL SELECT 'paying_purchases: ' || to_jsonb(t)::text FROM ledger.paying_purchases t
            UNION ALL SELECT 'user_grants: ' || to_jsonb(t)::text FROM ledger.user_grants t
            UNION ALL SELECT 'identities: ' || to_jsonb(t)::text FROM ledger.identities t
            """)
        return try rows.map { try $0.decode(String.self, at: 0) }.filter { $0.contains(needle) }
    }

    @Test(.timeLimit(.minutes(10))) func aUserRecordedThroughEveryWriteIsNamedByPseudonymAndReadByTheirID() async throws {
        let harness = try await APIHarness.make(now: SupportGrantTests.start)
        let signed = try UserRoutesTests.signed(harness)
        try await harness.test { api in
            let tenant = try await api.tenant()
            for (product, body) in [
                ("monthly", #"{"type":"auto_renewable","subscription_group":"main","entitlements":["pro"]}"#),
                ("coins", #"{"type":"consumable"}"#)
            ] {
                #expect(try await api.send(.put, "/v1/apps/\(tenant.appID)/products/\(product)", headers: tenant.secret, json: body).status == .ok)
            }
            let upload = try await api.send(
                .post, "/v1/users/\(Self.user)/transactions", headers: tenant.secret,
                json: UserRoutesTests.upload([signed.subscription, signed.coins], renewal: signed.renewal))
            #expect(upload.status == .ok, "\(upload.text)")
            #expect(try await api.send(.post, "/v1/users/\(Self.user)/purchases/9002/consume", headers: tenant.secret).status == .ok)
            let consent = try await api.send(
                .post, "/v1/users/\(Self.user)/consumption-consent", headers: tenant.secret, json: #"{"consented":true}"#)
            #expect(consent.status == .ok && consent.string("app_user_id") == Self.user, "\(consent.text)")
            let grant = try await SupportGrantTests.give(api, tenant, user: Self.user, tenant.secret, admin: false, days: 7)
            #expect(grant.status == .created, "\(grant.text)")
            try await harness.project()

            // Stored: the pseudonym everywhere, the id nowhere but sealed in its identity.
            let pseudonym = try #require(try await harness.identities.find(app: tenant.appID, user: Self.user))
            #expect(pseudonym.hasPrefix("usr_") && pseudonym.count == 28)
            #expect(try await Self.holding(Self.user, harness.pool) == [])
            let named = try await Self.holding(pseudonym, harness.pool)
            // (Sandbox purchases: no paying-user rows.)
            for table in ["events", "subscriptions", "purchases", "user_grants", "identities"] {
                #expect(named.contains { $0.hasPrefix(table + ":") }, "no \(table) row names the pseudonym: \(named.prefix(3))")
            }
            #expect(try await harness.identities.userID(app: tenant.appID, pseudonym: pseudonym) == Self.user)

            // Read: by the id, and the answers name the id.
            let answer = try await api.send(.get, "/v1/users/\(Self.user)", headers: tenant.secret)
            #expect(answer.string("app_user_id") == Self.user && answer.json["known"] as? Bool == true, "\(answer.text)")
            #expect(answer.array("subscriptions").map { $0["original_transaction_id"] as? String } == ["9001"])
            #expect(answer.array("entitlements").compactMap { $0["id"] as? String }.sorted() == ["pro"], "\(answer.text)")
            #expect(answer.array("grants").count == 1 && answer.array("unconsumed").isEmpty)
            #expect(!answer.text.contains(pseudonym))
            // (The subscription signed in January has expired; the entitlement is the grant's.)
            let products = try await api.send(.get, "/productsStatus?user-id=\(Self.user)", headers: tenant.secret)
            #expect(products.text.contains(#"{"id":"monthly","status":"inactive"}"#), "\(products.text)")
            #expect(
                answer.array("entitlements").first?["product_id"] as? String == "grant:"
                    + ((grant.json["grant"] as? [String: Any])?["grant_id"] as? String ?? "?"))

            // The pseudonym is per app: the same id in another app is another user there.
            let other = try await api.send(.get, "/v1/users/\(pseudonym)", headers: tenant.secret)
            #expect(other.json["known"] as? Bool == false, "a pseudonym is not an id: \(other.text)")
        }
    }

    /// A log written before pseudonyms names the user by id: the first use of the identities adopts them (their id is
    /// their pseudonym), so reads find them and new writes land in the same streams.
    @Test(.timeLimit(.minutes(10))) func aUserNamedByIDBeforePseudonymsIsAdoptedAndKeepsTheirHistory() async throws {
        let url = try await TestDatabase.makeDatabase(prefix: "legacy")
        let pool = try await LedgerDatabase.open(connectionString: url, migrations: try SchemaLocation.migrations())
        let app = try await TenancyStore(pool: pool).createApp(
            .init(accountID: try await TenancyStore(pool: pool).createAccount(name: "Acme").id, name: "Notes", bundleID: "com.example.app"))
        let consent = LedgerEvent.consumptionConsentRecorded(
            ConsumptionConsent(appUserID: "legacy-bob", consented: true, source: .backend, recordedAt: SupportGrantTests.start))
        _ = try await EventStore(pool: pool).append(
            app: app.id, stream: LedgerStreams.user(appUserID: "legacy-bob"),
            events: [
                NewEvent(
                    consent, idempotencyKey: consent.idempotencyKey, occurredAt: SupportGrantTests.start, metadata: EventMetadata(source: "test"))
            ])
        // And 2,500 more, so the adoption reads them in several batches.
        let encoded = consent.encoded()
        _ = try await pool.query(
            """
            INSERT INTO ledger.events (app_id, stream_id, stream_version, event_type, schema_version, payload, idempotency_key, occurred_at,
                                       previous_hash, hash)
            SELECT \(app.id), 'user:legacy-' || i, 1, \(encoded.type), \(encoded.schemaVersion),
                   replace(\(encoded.payload), 'legacy-bob', 'legacy-' || i)::jsonb, 'legacy-consent-' || i, now(), '', ''
            FROM generate_series(1, 2500) AS i
            """)
        await pool.shutdown()

        let harness = try await APIHarness.make(database: url, now: SupportGrantTests.start)
        #expect(try await harness.identities.find(app: app.id, user: "legacy-bob") == "legacy-bob")
        #expect(try await harness.identities.find(app: app.id, user: "legacy-2500") == "legacy-2500")
        let adopted = try await harness.pool.query("SELECT count(*) FROM ledger.identities WHERE pseudonym LIKE 'legacy-%'").first?
            .decode(Int64.self, at: 0)
        #expect(adopted == 2_501)
        #expect(try await harness.identities.find(app: app.id, user: "someone-new") == nil)
        // Named again: the same identity, not a new pseudonym.
        #expect(try await harness.identities.pseudonym(app: app.id, user: "legacy-bob") == "legacy-bob")
        #expect(try await harness.identities.userID(app: app.id, pseudonym: "legacy-bob") == "legacy-bob")
    }
}
