import Foundation
import HTTPTypes
import LedgerDomain
import LedgerOperators
import LedgerPrivacy
import LedgerServer
import LedgerServerTestSupport
import LedgerStore
import LedgerWebhooks
import PostgresClient
import Testing
import UTCTime

/// Issue 37, item 6: a support grant is an event in the user's history, so it appears, expires and ends through every
/// per-user read: status, entitlements, the live stream, webhooks, the timeline, as-of views and a rebuild.
@Suite struct SupportGrantTests {
    /// Now, to the second: webhooks judge a grant at the event's `recorded_at`, which is the database's clock.
    static let start = Instant(secondsSinceEpoch: Int64(Date().timeIntervalSince1970))

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// The entitlement `id` of a user answer (`GET /v1/users/{id}` or `/entitlements`).
    static func entitlement(_ answer: APIResponse, _ id: String) -> [String: Any]? {
        answer.array("entitlements").first { $0["id"] as? String == id }
    }

    static func give(
        _ api: APIClient, _ tenant: APIClient.Tenant, user: String, _ headers: HTTPFields, admin: Bool, days: Int64, entitlement: String = "pro"
    )
        async throws -> APIResponse
    {
        let path = admin ? "/v1/admin/apps/\(tenant.appID)/users/\(user)/grants" : "/v1/users/\(user)/grants"
        return try await api.send(
            .post, path, headers: headers,
            json: #"{"entitlement_id":"\#(entitlement)","expires_at":"\#(start.adding(days: days).rfc3339)","reason":"Ticket 4411: outage"}"#)
    }

    /// Sells `pro.monthly` with `entitlements` in the tenant's catalog.
    static func sellProMonthly(_ api: APIClient, _ tenant: APIClient.Tenant, entitlements: String = "pro") async throws {
        let product = try await api.send(
            .put, "/v1/apps/\(tenant.appID)/products/pro.monthly", headers: tenant.secret,
            json: #"{"type":"auto_renewable","entitlements":["\#(entitlements)"]}"#)
        #expect(product.status == .ok, "\(product.text)")
    }

    @Test(.timeLimit(.minutes(10))) func aGrantAppearsExpiresAndIsRevokedThroughEveryReadPath() async throws {
        let harness = try await APIHarness.make(now: Self.start)
        try await harness.test { api in
            let tenant = try await api.tenant()
            try await Self.sellProMonthly(api, tenant)
            let endpoint = try await api.send(
                .post, "/v1/apps/\(tenant.appID)/webhooks", headers: tenant.secret, json: #"{"url":"http://127.0.0.1:9/hook"}"#)
            #expect(endpoint.status == .created, "\(endpoint.text)")
            let hub = harness.api.live
            let running = Task { await hub.run() }
            defer { running.cancel() }
            let stream = try hub.open(
                app: tenant.appID, user: "alice", pseudonym: try await hub.pseudonym(app: tenant.appID, user: "alice"), key: "k")
            var messages = stream.messages.makeAsyncIterator()
            guard case .state(let first, _, let snapshot)? = await messages.next() else {
                Issue.record("the live stream sent no snapshot")
                return
            }
            #expect(first == "snapshot" && !snapshot.contains("\"pro\""))

            // Support gives alice "pro" for 7 days.
            let support = APIClient.bearer(try await OperatorTokenTests.token(harness, "sam", .support))
            let given = try await Self.give(api, tenant, user: "alice", support, admin: true, days: 7)
            #expect(given.status == .created, "\(given.text)")
            let grant = try #require((given.json["grant"] as? [String: Any])?["grant_id"] as? String)
            let operatorID = try #require(try await OperatorStore(pool: harness.pool, masterKey: harness.masterKey).find(name: "sam")?.id)
            #expect(given.string("by") == operatorID)
            try await harness.project()

            // Status and entitlements.
            let user = try await api.send(.get, "/v1/users/alice", headers: tenant.secret)
            #expect(user.json["known"] as? Bool == true, "a user who holds only a grant is known")
            let pro = try #require(Self.entitlement(user, "pro"), "\(user.text)")
            #expect(pro["is_active"] as? Bool == true)
            #expect(pro["product_id"] as? String == "grant:" + grant)
            #expect(pro["expires_at"] as? String == Self.start.adding(days: 7).rfc3339)
            #expect(user.array("grants").map { $0["grant_id"] as? String } == [grant])
            #expect(user.array("grants").first?["is_active"] as? Bool == true)
            #expect(user.array("one_time_purchases").isEmpty && user.array("subscriptions").isEmpty)
            let entitlements = try await api.send(.get, "/v1/users/alice/entitlements", headers: tenant.secret)
            #expect(Self.entitlement(entitlements, "pro")?["is_active"] as? Bool == true, "\(entitlements.text)")

            // The timeline: the event, with the operator who gave it.
            let timeline = try await api.send(.get, "/v1/users/alice/events", headers: tenant.secret)
            let event = try #require(timeline.array("events").first { $0["type"] as? String == "user.grant_given" }, "\(timeline.text)")
            let position = try #require(event["position"] as? Int)
            #expect(timeline.text.contains(operatorID))

            // The live stream: a change with the grant.
            hub.wake()
            var change: String?
            while change == nil, let message = await messages.next() {
                if case .state("change", _, let json) = message, json.contains("grant:" + grant) { change = json }
            }
            let live = Self.json(try #require(change))
            let liveEntitlements = live["entitlements"] as? [[String: Any]] ?? []
            #expect(liveEntitlements.first { $0["id"] as? String == "pro" }?["is_active"] as? Bool == true, "\(live)")

            // Webhooks: one delivery, about the user, with the grant and the user's entitlements.
            try await WebhookFanOut(pool: harness.pool, identities: harness.identities, render: WebhookPayload.render).catchUp()
            let payloads = try await harness.pool.query(
                "SELECT event_type, order_key, payload FROM ledger.webhook_deliveries WHERE app_id = \(tenant.appID) ORDER BY position")
            let rows = try payloads.map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1), try $0.decode(String.self, at: 2)) }
            #expect(rows.map(\.0) == ["user.grant_given"])
            let pseudonym = try #require(try await harness.identities.find(app: tenant.appID, user: "alice"))
            #expect(rows.first?.1 == "user:" + pseudonym, "in order with the user's purchases (keyed by pseudonym)")
            let stored = try #require(rows.first?.2)
            #expect(stored.hasPrefix("pii1.dk_"), "the body names the user, so it is stored sealed under their key")
            let body = try #require(try await harness.identities.fields.open(app: tenant.appID, [stored])[stored])
            let data = try #require(Self.json(body)["data"] as? [String: Any])
            #expect((data["grant"] as? [String: Any])?["grant_id"] as? String == grant)
            #expect(data["original_transaction_id"] is NSNull && data["app_user_id"] as? String == "alice")
            let webhookEntitlements = (data["user"] as? [String: Any])?["entitlements"] as? [[String: Any]] ?? []
            #expect(webhookEntitlements.first?["id"] as? String == "pro" && webhookEntitlements.first?["is_active"] as? Bool == true)

            // As of the event (`ledger replay --as-of`'s fold and the console's as-of page).
            let alice = try #require(try await harness.identities.find(app: tenant.appID, user: "alice"))
            let (streams, _) = try await UserQueries(pool: harness.pool).ownedStreams(app: tenant.appID, pseudonym: alice)
            let recorded = try await UserQueries(pool: harness.pool).events(app: tenant.appID, streams: streams, through: Int64(position))
            let asOf = UserSnapshot(
                appUserID: alice, events: recorded.compactMap(DomainEventDecoding.decode), asOf: nil, catalog: Catalog(entitlementsByProduct: [:]),
                at: Self.start)
            #expect(asOf.entitlements["pro"]?.isActive == true)
            let session = try #require(try await ConsoleTests.signIn(api).1)
            let cookie: HTTPFields = [.cookie: session.cookie]
            let page = try await api.send(.get, "/console/customers/\(tenant.appID)/alice/as-of/\(position)", headers: cookie)
            #expect(page.status == .ok && page.text.contains("grant \(grant)"), "\(page.text.suffix(800))")
            let customer = try await api.send(.get, "/console/customers/\(tenant.appID)/alice", headers: cookie)
            #expect(customer.text.contains(grant) && customer.text.contains("user.grant_given"))

            // A grant is not a purchase: nobody pays for this month.
            let paying = try await harness.pool.query("SELECT count(*) FROM ledger.paying_users WHERE app_id = \(tenant.appID)")
            #expect(try paying[0].decode(Int64.self, at: 0) == 0)

            // Expiry is judged at each read's clock: eight days on, the entitlement has ended, with no new event.
            harness.clock.advance(seconds: 8 * 86_400)
            let later = try await api.send(.get, "/v1/users/alice", headers: tenant.secret)
            #expect(Self.entitlement(later, "pro")?["is_active"] as? Bool == false, "\(later.text)")
            #expect(later.array("grants").first?["is_active"] as? Bool == false)
            let expired = try await api.send(.delete, "/v1/admin/apps/\(tenant.appID)/users/alice/grants/\(grant)", headers: support)
            #expect(expired.status == .conflict && expired.errorCode == "already_expired", "\(expired.text)")

            // The developer's backend gives one with the secret key and revokes it: it ends at once, and once.
            let second = try await Self.give(api, tenant, user: "alice", tenant.secret, admin: false, days: 30)
            #expect(second.status == .created, "\(second.text)")
            let secondID = try #require((second.json["grant"] as? [String: Any])?["grant_id"] as? String)
            #expect(second.string("by")?.hasPrefix("key:") == true)
            try await harness.project()
            #expect(Self.entitlement(try await api.send(.get, "/v1/users/alice", headers: tenant.secret), "pro")?["is_active"] as? Bool == true)
            let revoked = try await api.send(.delete, "/v1/users/alice/grants/\(secondID)?reason=wrong%20user", headers: tenant.secret)
            #expect(revoked.status == .ok, "\(revoked.text)")
            #expect((revoked.json["grant"] as? [String: Any])?["revoked_at"] is String && revoked.string("reason") == "wrong user")
            try await harness.project()
            let after = try await api.send(.get, "/v1/users/alice", headers: tenant.secret)
            #expect(Self.entitlement(after, "pro")?["is_active"] as? Bool == false, "\(after.text)")
            let again = try await api.send(.delete, "/v1/users/alice/grants/\(secondID)", headers: tenant.secret)
            #expect(again.status == .conflict && again.errorCode == "already_revoked", "\(again.text)")
            let unknown = try await api.send(.delete, "/v1/users/alice/grants/grant_000", headers: tenant.secret)
            #expect(unknown.status == .notFound && unknown.errorCode == "unknown_grant", "\(unknown.text)")

            // The console (signed in again: eight days ended the session): support's form gives one, and the customer's
            // page shows it with a revoke form.
            let renewed = try #require(try await ConsoleTests.signIn(api).1)
            // The form carries a key of its own: sent twice (a double click), it gives one grant.
            let empty = try await api.send(.get, "/console/customers/\(tenant.appID)/bob", headers: [.cookie: renewed.cookie])
            let formKey = try #require(
                empty.text.firstRange(of: #/name=form_key value=(form_[0-9a-f]{24})/#).map { String(empty.text[$0].dropFirst(20)) })
            for _ in 0..<2 {
                let form = try await ConsoleTests.post(
                    api, "/console/customers/\(tenant.appID)/bob/grants", cookie: renewed.cookie,
                    [("csrf", renewed.csrf), ("entitlement", "pro"), ("days", "3"), ("reason", "reviewer"), ("form_key", formKey)])
                #expect(form.status == .seeOther, "\(form.text)")
            }
            let changed = try await ConsoleTests.post(
                api, "/console/customers/\(tenant.appID)/bob/grants", cookie: renewed.cookie,
                [("csrf", renewed.csrf), ("entitlement", "pro"), ("days", "4"), ("reason", "reviewer"), ("form_key", formKey)])
            #expect(changed.status == .conflict && changed.text.contains("sent already"), "\(changed.text)")
            try await harness.project()
            let bob = try await api.send(.get, "/v1/users/bob", headers: tenant.secret)
            #expect(Self.entitlement(bob, "pro")?["is_active"] as? Bool == true, "\(bob.text)")
            #expect(bob.array("grants").count == 1, "\(bob.text)")
            let bobGrant = try #require(bob.array("grants").first?["grant_id"] as? String)
            let bobPage = try await api.send(.get, "/console/customers/\(tenant.appID)/bob", headers: [.cookie: renewed.cookie])
            #expect(bobPage.text.contains("/grants/\(bobGrant)/revoke"))
            let found = try await api.send(.get, "/console/customers?app=\(tenant.appID)&q=bob", headers: [.cookie: renewed.cookie])
            #expect(found.text.contains("/console/customers/\(tenant.appID)/bob"), "a user who holds only grants is found")
            let record = try await OperatorActionLog(pool: harness.pool).list(OperatorActionFilter(action: "grant.give"), limit: 10)
            #expect(record.map(\.target) == [bobGrant])

            // A rebuild from the log gives the same rows: the grants read model is keyed by user, folded from the user's stream.
            #expect(try await ProjectionReplay.check(pool: harness.pool).isEmpty)
            try await ProjectionReplay.rebuild(pool: harness.pool)
            let rebuilt = try await api.send(.get, "/v1/users/alice", headers: tenant.secret)
            #expect(rebuilt.array("grants").count == 2 && rebuilt.json["known"] as? Bool == true, "\(rebuilt.text)")
        }
    }

    /// What support and the backend may not do, each refused with what to fix and nothing written.
    @Test func refusalsSayWhatToFixAndWriteNothing() async throws {
        let harness = try await APIHarness.make(now: Self.start)
        try await harness.test { api in
            let tenant = try await api.tenant()
            try await Self.sellProMonthly(api, tenant)
            let path = "/v1/users/u1/grants"
            func give(_ body: String, _ headers: HTTPFields = tenant.secret) async throws -> APIResponse {
                try await api.send(.post, path, headers: headers, json: body)
            }
            let until = Self.start.adding(days: 1).rfc3339
            let typo = try await give(#"{"entitlement_id":"por","expires_at":"\#(until)","reason":"r"}"#)
            #expect(typo.status == .badRequest && typo.errorCode == "unknown_entitlement" && typo.text.contains("pro"), "\(typo.text)")
            let noReason = try await give(#"{"entitlement_id":"pro","expires_at":"\#(until)","reason":"  "}"#)
            #expect(noReason.status == .badRequest && noReason.text.contains("reason"), "\(noReason.text)")
            let past = try await give(#"{"entitlement_id":"pro","expires_at":"\#(Self.start.rfc3339)","reason":"r"}"#)
            #expect(past.status == .badRequest && past.text.contains("not in the future"), "\(past.text)")
            let far = try await give(#"{"entitlement_id":"pro","expires_at":"\#(Self.start.adding(days: 4000).rfc3339)","reason":"r"}"#)
            #expect(far.status == .badRequest && far.text.contains("3660"), "\(far.text)")
            let notADate = try await give(#"{"entitlement_id":"pro","expires_at":"tomorrow","reason":"r"}"#)
            #expect(notADate.status == .badRequest && notADate.text.contains("RFC 3339"), "\(notADate.text)")
            let extra = try await give(#"{"entitlement_id":"pro","expires_at":"\#(until)","reason":"r","days":3}"#)
            #expect(extra.status == .badRequest, "\(extra.text)")
            let publicKey = try await give(#"{"entitlement_id":"pro","expires_at":"\#(until)","reason":"r"}"#, tenant.publicHeaders)
            #expect(publicKey.status == .forbidden, "the app's public key gives nothing: \(publicKey.text)")
            let finance = APIClient.bearer(try await OperatorTokenTests.token(harness, "fin", .finance))
            let refused = try await api.send(
                .post, "/v1/admin/apps/\(tenant.appID)/users/u1/grants", headers: finance,
                json: #"{"entitlement_id":"pro","expires_at":"\#(until)","reason":"r"}"#)
            #expect(refused.status == .forbidden && refused.text.contains("support"), "\(refused.text)")
            let written = try await harness.pool.query("SELECT count(*) FROM ledger.events WHERE app_id = \(tenant.appID)")
            #expect(try written[0].decode(Int64.self, at: 0) == 0)
        }
    }

    /// A grant POST with an `Idempotency-Key` may be retried: the same key and values answer the first grant again (one
    /// event, one entitlement), concurrent retries too; other values under the key are refused; another key, or
    /// another user under the same key, gives another grant; a malformed key is a 400.
    @Test func aRetriedGrantWithItsIdempotencyKeyGivesOneGrant() async throws {
        let harness = try await APIHarness.make(now: Self.start)
        try await harness.test { api in
            let tenant = try await api.tenant()
            try await Self.sellProMonthly(api, tenant)
            let until = Self.start.adding(days: 3).rfc3339
            let body = #"{"entitlement_id":"pro","expires_at":"\#(until)","reason":"Ticket 7: outage"}"#
            func give(user: String = "u1", key: String?, _ json: String = body) async throws -> APIResponse {
                var headers = tenant.secret
                if let key { headers[HTTPField.Name("Idempotency-Key")!] = key }
                return try await api.send(.post, "/v1/users/\(user)/grants", headers: headers, json: json)
            }
            let first = try await give(key: "ticket-7-a")
            #expect(first.status == .created, "\(first.text)")
            let grantID = try #require((first.json["grant"] as? [String: Any])?["grant_id"] as? String)
            let position = try #require(first.json["position"] as? Int)
            let retries = try await withThrowingTaskGroup(of: APIResponse.self) { group in
                for _ in 0..<4 { group.addTask { try await give(key: "ticket-7-a") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for retry in retries {
                #expect(retry.status == .created, "\(retry.text)")
                #expect((retry.json["grant"] as? [String: Any])?["grant_id"] as? String == grantID)
                #expect(retry.json["position"] as? Int == position)
                #expect(
                    NSDictionary(dictionary: retry.json["grant"] as? [String: Any] ?? [:])
                        == NSDictionary(dictionary: first.json["grant"] as? [String: Any] ?? ["": 0]), "the first grant, as given")
            }
            let otherValues = try await give(key: "ticket-7-a", #"{"entitlement_id":"pro","expires_at":"\#(until)","reason":"Ticket 8"}"#)
            #expect(otherValues.status == .unprocessableContent && otherValues.errorCode == "idempotency_key_reused", "\(otherValues.text)")
            #expect(otherValues.text.contains(grantID))
            // First requests racing each other: one appends, the others find its event by the log's unique key.
            let racing = try await withThrowingTaskGroup(of: APIResponse.self) { group in
                for _ in 0..<5 { group.addTask { try await give(key: "ticket-9") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(racing.allSatisfy { $0.status == .created }, "\(racing.map(\.text))")
            #expect(Set(racing.map { ($0.json["grant"] as? [String: Any])?["grant_id"] as? String }).count == 1)
            #expect(Set(racing.map { ($0.json["grant"] as? [String: Any])?["granted_at"] as? String }).count == 1, "the first one's")
            #expect(Set(racing.map { $0.json["position"] as? Int }).count == 1)
            // A retry the rules would refuse now (the catalog no longer names the entitlement) still finds its grant.
            try await Self.sellProMonthly(api, tenant, entitlements: "premium")
            let afterRename = try await give(key: "ticket-7-a")
            #expect(afterRename.status == .created && afterRename.json["position"] as? Int == position, "\(afterRename.text)")
            let refusedNow = try await give(key: "ticket-7-c")
            #expect(refusedNow.errorCode == "unknown_entitlement", "\(refusedNow.text)")
            try await Self.sellProMonthly(api, tenant)
            let otherKey = try await give(key: "ticket-7-b")
            let noKey = try await give(key: nil)
            let otherUser = try await give(user: "u2", key: "ticket-7-a")
            let ids = [otherKey, noKey, otherUser].map { ($0.json["grant"] as? [String: Any])?["grant_id"] as? String }
            #expect(Set(ids.compactMap { $0 } + [grantID]).count == 4, "\([otherKey, noKey, otherUser].map(\.text))")
            for bad in ["", "a b", String(repeating: "k", count: 256), "caf\u{e9}"] {
                let refused = try await give(key: bad)
                #expect(refused.status == .badRequest && refused.text.contains("Idempotency-Key"), "\(bad): \(refused.text)")
            }
            let given = try await harness.pool.query(
                "SELECT count(*) FROM ledger.events WHERE app_id = \(tenant.appID) AND event_type = 'user.grant_given'")
            #expect(try given[0].decode(Int64.self, at: 0) == 5, "u1: ticket-7-a, ticket-9, ticket-7-b, no key; u2: ticket-7-a")
        }
    }
}
