import AppStoreSamples
import Foundation
import HTTPTypes
import LedgerDomain
import LedgerPrivacy
import LedgerServerTestSupport
import PostgresClient
import Testing
import UTCTime

/// The console (`/console`) in-process against a real PostgreSQL: sign-in, sessions, CSRF refusals, expiry, escaping,
/// and every page answering 200. `ConsoleBrowserTests` drives the same pages from a real browser.
@Suite struct ConsoleTests {
    /// A signed-in console: the session cookie and the session's CSRF token.
    struct Session {
        var cookie: String
        var csrf: String
        var headers: HTTPFields { [.cookie: cookie] }
    }

    static func form(_ fields: [(String, String)]) -> [UInt8] {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let text = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        return Array(text.utf8)
    }

    static func post(_ api: APIClient, _ uri: String, cookie: String?, _ fields: [(String, String)]) async throws -> APIResponse {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let cookie { headers[.cookie] = cookie }
        return try await api.send(.post, uri, headers: headers, bytes: form(fields))
    }

    /// The value of the first `name="csrf"` hidden field of a page.
    static func csrf(in page: String) -> String? {
        guard let range = page.range(of: "name=\"csrf\" value=\"") else { return nil }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    static func cookie(_ response: APIResponse, _ name: String) -> String? {
        response.headers[values: .setCookie].first { $0.hasPrefix(name + "=") }
    }

    static func signIn(
        _ api: APIClient, actor: String = "Ada", token: String = APIHarness.adminToken,
        headers extra: HTTPFields = [:]
    ) async throws -> (APIResponse, Session?) {
        let page = try await api.send(.get, "/console/sign-in", headers: extra)
        #expect(page.status == .ok)
        let nonceCookie = try #require(cookie(page, "ledger_console_signin")).split(separator: ";")[0]
        let nonce = try #require(csrf(in: page.text))
        var headers = extra
        headers[.contentType] = "application/x-www-form-urlencoded"
        headers[.cookie] = String(nonceCookie)
        let answer = try await api.send(
            .post, "/console/sign-in", headers: headers,
            bytes: form([("csrf", nonce), ("actor", actor), ("token", token)]))
        guard answer.status == .seeOther, let set = cookie(answer, "ledger_console") else { return (answer, nil) }
        let sessionCookie = String(set.split(separator: ";")[0])
        let customers = try await api.send(.get, "/console/customers", headers: [.cookie: sessionCookie])
        return (answer, Session(cookie: sessionCookie, csrf: try #require(csrf(in: customers.text))))
    }

    /// 2026-02-02T00:00:00Z.
    static let february2 = Instant(secondsSinceEpoch: 1_769_990_400)

    static func purchase(_ id: String, product: String = "coins", type: String = "consumable", day: String = "2026-01-03T10:00:00Z") -> String {
        #"{"payment_id":"\#(id)","provider":"paylike","product_id":"\#(product)","product_type":"\#(type)","price":{"amount_milliunits":4990,"#
            + #""currency":"USD"},"purchased_at":"\#(day)","environment":"production"}"#
    }

    @Test func signInGivesAStrictHttpOnlySessionThatSignsOut() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            // Without a session: pages send to the sign-in page, writes are refused.
            let anonymous = try await api.send(.get, "/console/customers")
            #expect(anonymous.status == .seeOther)
            #expect(anonymous.headers[.location] == "/console/sign-in")
            #expect(try await Self.post(api, "/console/finance/finalize", cookie: nil, [("csrf", "x"), ("month", "2026-01")]).status == .forbidden)
            #expect(try await api.send(.get, "/console/customers", headers: [.cookie: "ledger_console=forged"]).status == .seeOther)

            let (refused, none) = try await Self.signIn(api, token: "wrong")
            #expect(refused.status == .unauthorized && none == nil)

            let (answer, session) = try await Self.signIn(api)
            let set = try #require(Self.cookie(answer, "ledger_console"))
            #expect(set.contains("HttpOnly") && set.contains("SameSite=Strict") && set.contains("Path=/console") && !set.contains("Secure"))
            let signed = try #require(session)
            // Behind a TLS proxy the cookie is Secure.
            let (behindTLS, _) = try await Self.signIn(api, headers: [HTTPField.Name("X-Forwarded-Proto")!: "https"])
            #expect(Self.cookie(behindTLS, "ledger_console")?.contains("; Secure") == true)

            let customers = try await api.send(.get, "/console/customers", headers: signed.headers)
            #expect(customers.status == .ok && customers.text.contains("Ada"))
            #expect(customers.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)

            // Signing out ends the session for good.
            let out = try await Self.post(api, "/console/sign-out", cookie: signed.cookie, [("csrf", signed.csrf)])
            #expect(out.status == .seeOther)
            #expect(Self.cookie(out, "ledger_console")?.contains("Max-Age=0") == true)
            #expect(try await api.send(.get, "/console/customers", headers: signed.headers).status == .seeOther)
        }
    }

    @Test func aFormWithoutThisSessionsCSRFTokenIsRefused() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let tenant = try await api.tenant()
            let session = try #require(try await Self.signIn(api).1)
            let (_, other) = try await Self.signIn(api, actor: "Eve")
            let fields = [("month", "2025-12"), ("account", tenant.accountID)]
            for csrf in ["", "forged", try #require(other?.csrf)] {
                let refused = try await Self.post(api, "/console/finance/finalize", cookie: session.cookie, fields + [("csrf", csrf)])
                #expect(refused.status == .forbidden, "csrf \(csrf)")
                #expect(refused.text.contains("CSRF"))
            }
            // A sign-in form posted without its own nonce cookie (another site's form) is refused too.
            let forged = try await Self.post(
                api, "/console/sign-in", cookie: nil,
                [("csrf", "abc"), ("actor", "Mallory"), ("token", APIHarness.adminToken)])
            #expect(forged.status == .forbidden)
            let confirm = try await Self.post(api, "/console/finance/finalize", cookie: session.cookie, fields + [("csrf", session.csrf)])
            #expect(confirm.status == .ok && confirm.text.contains("Yes, finalize"), "\(confirm.text)")
        }
    }

    @Test func sessionsExpire() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let session = try #require(try await Self.signIn(api).1)
            // Active every 20 minutes (under the idle limit) up to a minute before the absolute end: still signed in.
            for _ in 0..<23 {
                harness.clock.advance(seconds: 20 * 60)
                #expect(try await api.send(.get, "/console/finance", headers: session.headers).status == .ok)
            }
            harness.clock.advance(seconds: 8 * 3600 - 23 * 20 * 60 - 60)
            #expect(try await api.send(.get, "/console/finance", headers: session.headers).status == .ok)
            harness.clock.advance(seconds: 120)
            let expired = try await api.send(.get, "/console/finance", headers: session.headers)
            #expect(expired.status == .seeOther && expired.headers[.location] == "/console/sign-in")
            #expect(try await Self.post(api, "/console/sign-out", cookie: session.cookie, [("csrf", session.csrf)]).status == .forbidden)
        }
    }

    @Test func hostileInputIsEscapedEverywhere() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let tenant = try await api.tenant()
            let hostile = "<script>alert(1)</script>"
            let path = hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(
                try await api.send(
                    .post, "/v1/users/\(path)/external-purchases", headers: tenant.secret,
                    json: Self.purchase("pay-'><img src=x>")
                ).status == .created)
            try await harness.project()
            let session = try #require(try await Self.signIn(api, actor: "<b>Ada</b>").1)
            let found = try await api.send(.get, "/console/customers?app=\(tenant.appID)&q=\(path)", headers: session.headers)
            #expect(found.status == .ok)
            let customer = try await api.send(.get, "/console/customers/\(tenant.appID)/\(path)", headers: session.headers)
            #expect(customer.status == .ok)
            for page in [found.text, customer.text] {
                #expect(!page.contains("<script>") && page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
                #expect(!page.contains("<img") && !page.contains("<b>Ada"))
            }
            #expect(customer.text.contains("pay-&#39;&gt;&lt;img src=x&gt;"))
            // Bad input answers 4xx pages, never 5xx.
            #expect(try await api.send(.get, "/console/customers/\(tenant.appID)/x/as-of/abc", headers: session.headers).status == .badRequest)
            #expect(try await api.send(.get, "/console/customers/\(tenant.appID)/x/as-of/999999", headers: session.headers).status == .notFound)
            #expect(try await api.send(.get, "/console/customers?q=%ZZ", headers: session.headers).status == .badRequest)
            #expect(try await api.send(.get, "/console/finance?month=nope", headers: session.headers).status == .badRequest)
            #expect(try await api.send(.get, "/console/finance/invoices/nope", headers: session.headers).status == .notFound)
            #expect(try await api.send(.get, "/console/operations/apps/nope", headers: session.headers).status == .notFound)
        }
    }

    @Test func everyPageAnswersAndWritesAreRecordedWithWhoDidThem() async throws {
        let harness = try await APIHarness.make(now: Self.february2)  // January, the month it finalizes, has ended
        try await harness.test { api in
            let tenant = try await api.tenant()
            #expect(
                try await api.send(
                    .post, "/v1/users/alice/external-purchases", headers: tenant.secret,
                    json: Self.purchase("pay-1")
                ).status == .created)
            try await harness.project()
            let consumed = try await api.send(.post, "/v1/users/alice/purchases/pay-1/consume", headers: tenant.secret)
            #expect(consumed.status == .ok, "\(consumed.text)")
            try await harness.project()
            #expect(
                try await api.send(
                    .post, "/v1/admin/plans", headers: APIClient.admin,
                    json: #"{"id":"flat","currency":"USD","tiers":[{"from":1,"unit_price_minor":100}]}"#
                ).status == .created)
            #expect(
                try await api.send(
                    .put, "/v1/admin/accounts/\(tenant.accountID)/plan", headers: APIClient.admin,
                    json: #"{"plan_id":"flat","from_month":"2026-01"}"#
                ).status == .ok)
            let session = try #require(try await Self.signIn(api).1)
            let h = session.headers

            // Customers: found by user id and by transaction id; the timeline; as of the first event, before the consume.
            for q in ["alice", "pay-1"] {
                let found = try await api.send(.get, "/console/customers?app=\(tenant.appID)&q=\(q)", headers: h)
                #expect(found.text.contains("/console/customers/\(tenant.appID)/alice"), "\(q)")
            }
            let customer = try await api.send(.get, "/console/customers/\(tenant.appID)/alice", headers: h)
            #expect(customer.status == .ok)
            #expect(customer.text.contains("purchase.external") && customer.text.contains("purchase.consumed"))
            #expect(customer.text.contains("id=chain>Intact"))
            let filtered = try await api.send(.get, "/console/customers/\(tenant.appID)/alice?type=purchase.consumed", headers: h)
            #expect(filtered.text.contains("purchase.consumed") && !filtered.text.contains("<td>purchase.external</td>"))
            let first = try #require(customer.text.range(of: "/as-of/").map { customer.text[$0.upperBound...].prefix { $0.isNumber } })
            let asOf = try await api.send(.get, "/console/customers/\(tenant.appID)/alice/as-of/\(first)", headers: h)
            #expect(asOf.status == .ok)
            #expect(asOf.text.contains("<tr class=changed><td>purchase pay-1</td><td>coins · not consumed"), "\(asOf.text)")
            #expect(asOf.text.contains("<tr class=changed><td>unconsumed pay-1</td>"))

            // Finance: finalize (after confirming), the invoice page, its downloads.
            let month = [("month", "2026-01"), ("account", tenant.accountID), ("csrf", session.csrf)]
            let finalized = try await Self.post(api, "/console/finance/finalize", cookie: session.cookie, month + [("confirm", "yes")])
            #expect(finalized.status == .seeOther)
            let invoicePath = try #require(finalized.headers[.location])
            let invoice = try await api.send(.get, invoicePath, headers: h)
            #expect(invoice.status == .ok && invoice.text.contains("finalized") && invoice.text.contains("alice"), "\(invoice.text)")
            let csv = try await api.send(.get, invoicePath + "/download?format=csv", headers: h)
            #expect(csv.status == .ok && csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            #expect(csv.headers[.contentDisposition]?.contains("attachment") == true)
            #expect(try await api.send(.get, invoicePath + "/download?format=json", headers: h).status == .ok)
            #expect(try await api.send(.get, invoicePath + "/download?format=pdf", headers: h).status == .badRequest)
            let finance = try await api.send(.get, "/console/finance", headers: h)
            #expect(finance.status == .ok && finance.text.contains("<svg") && finance.text.contains("Paying users per month"))
            #expect(try await api.send(.get, "/console/finance?account=\(tenant.accountID)&month=2026-01", headers: h).status == .ok)
            // Void, after confirming.
            let voidFields = [("reason", "wrong plan"), ("csrf", session.csrf)]
            let confirmVoid = try await Self.post(api, invoicePath + "/void", cookie: session.cookie, voidFields)
            #expect(confirmVoid.status == .ok && confirmVoid.text.contains("Yes, void"))
            #expect(try await Self.post(api, invoicePath + "/void", cookie: session.cookie, voidFields + [("confirm", "yes")]).status == .seeOther)

            // Operations: apps, keys (create, revoke), webhook endpoints.
            #expect(try await api.send(.get, "/console/operations", headers: h).status == .ok)
            let appPath = "/console/operations/apps/\(tenant.appID)"
            let created = try await Self.post(api, appPath + "/keys", cookie: session.cookie, [("csrf", session.csrf), ("kind", "secret")])
            #expect(created.status == .ok && created.text.contains("id=new-key"))
            let key = try #require(created.text.range(of: "<code>sk_").map { created.text[$0.lowerBound...].dropFirst(6).prefix { $0 != "<" } })
            #expect(try await api.send(.get, "/v1/users/alice", headers: APIClient.bearer(String(key))).status == .ok)
            let page = try await api.send(.get, appPath, headers: h)
            let revokePath = try #require(page.text.range(of: "/keys/").map { page.text[$0.upperBound...].prefix { $0 != "/" } })
            let revoked = try await Self.post(api, appPath + "/keys/\(revokePath)/revoke", cookie: session.cookie, [("csrf", session.csrf)])
            #expect(revoked.status == .seeOther)

            let operations = try await api.send(.get, "/console/operations", headers: h)
            for action in ["invoice.finalize", "invoice.void", "key.create", "key.revoke", "sign_in"] {
                #expect(operations.text.contains("<td>Ada</td><td>break-glass</td><td>console</td><td>\(action)</td>"), "\(action)")
            }
        }
    }
    @Test func webhookDeliveriesAreListedAndRedeliveredByTheSignedInUser() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let tenant = try await api.tenant()
            let created = try await api.send(
                .post, "/v1/apps/\(tenant.appID)/webhooks", headers: tenant.secret,
                json: #"{"url":"http://127.0.0.1:9/hook"}"#)
            #expect(created.status == .created, "\(created.text)")
            let endpoint = try #require(created.string("endpoint_id"))
            // A delivery that gave up, as the dispatcher leaves one (its fan-out and sending are WebhookTests' subject).
            _ = try await harness.pool.query(
                """
                INSERT INTO ledger.webhook_deliveries (app_id, endpoint_id, delivery_id, position, event_type, app_user_id, order_key,
                                                       sequence, payload, status, attempts)
                VALUES (\(tenant.appID), \(endpoint), 'msg_console', 1, 'purchase.external', 'carol', 'carol', 1, '{}', 'given_up', 8)
                """)
            let session = try #require(try await Self.signIn(api).1)
            let app = try await api.send(.get, "/console/operations/apps/\(tenant.appID)", headers: session.headers)
            #expect(app.status == .ok && app.text.contains(endpoint))
            let path = "/console/operations/apps/\(tenant.appID)/webhooks/\(endpoint)"
            let log = try await api.send(.get, path, headers: session.headers)
            #expect(log.status == .ok)
            let delivery = try #require(log.text.range(of: "/deliveries/").map { log.text[$0.upperBound...].prefix { $0 != "/" } })
            let redeliver = "\(path)/deliveries/\(delivery)/redeliver"
            #expect(try await Self.post(api, redeliver, cookie: session.cookie, [("csrf", "forged")]).status == .forbidden)
            let answer = try await Self.post(api, redeliver, cookie: session.cookie, [("csrf", session.csrf)])
            #expect(answer.status == .seeOther)
            #expect(
                try await Self.post(
                    api, "\(path)/deliveries/msg_nope/redeliver", cookie: session.cookie,
                    [("csrf", session.csrf)]
                ).status == .notFound)
            let operations = try await api.send(.get, "/console/operations", headers: session.headers)
            #expect(operations.text.contains("<td>Ada</td><td>break-glass</td><td>console</td><td>webhook.redeliver</td><td>\(delivery)</td>"))
            let status = try await harness.pool.query("SELECT status FROM ledger.webhook_deliveries WHERE delivery_id = 'msg_console'")
            #expect(try status.first?.decode(String.self, at: 0) == "pending")
        }
    }
    /// The benchmark's console phase in small: one user with 10,000 events (a subscription renewed 9,999 times, written
    /// by PostgreSQL through the hash-chain trigger) opens paginated, with the chain checked. The time is the
    /// benchmark's figure (release build); here it is only printed.
    @Test(.timeLimit(.minutes(10))) func aCustomerWithTenThousandEventsOpensOnePageAtATime() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let tenant = try await api.tenant()
            let day = Instant(microsecondsSinceEpoch: 1_767_225_600_000_000)
            // Written as the ledger writes it: the user named by their pseudonym.
            let many = try await harness.identities.pseudonym(app: tenant.appID, user: "many")
            let facts = TransactionFacts(
                appUserID: many, productID: "monthly", transactionID: "TXID", originalTransactionID: "many-otx",
                environment: .production, purchaseDate: day, expiresDate: day.adding(days: 30), signedDate: day)
            let started = LedgerEvent.subscriptionStarted(SubscriptionStarted(transaction: facts)).encoded()
            let renewed = LedgerEvent.subscriptionRenewed(Renewal(transaction: facts)).encoded()
            let stream = LedgerStreams.purchase(originalTransactionID: "many-otx")
            for chunk in stride(from: 1, through: 10_000, by: 1_000) {
                _ = try await harness.pool.query(
                    """
                    INSERT INTO ledger.events (app_id, stream_id, stream_version, event_type, schema_version, payload, idempotency_key,
                                               occurred_at)
                    SELECT \(tenant.appID), \(stream), v, CASE WHEN v = 1 THEN \(started.type) ELSE \(renewed.type) END, 1,
                           replace(CASE WHEN v = 1 THEN \(started.payload) ELSE \(renewed.payload) END, 'TXID', 'many-tx-' || v)::jsonb,
                           'many:' || v, 'epoch'::timestamptz + \(day.microsecondsSinceEpoch) * interval '1 microsecond' + v * interval '1 minute'
                    FROM generate_series(\(Int64(chunk)), \(Int64(chunk + 999))) AS v ORDER BY v
                    """)
            }
            try await harness.project()
            let session = try #require(try await Self.signIn(api).1)
            let page = try await api.send(.get, "/console/customers/\(tenant.appID)/many", headers: session.headers)
            #expect(page.status == .ok)
            #expect(page.text.components(separatedBy: "class=as-of").count - 1 == 50)
            #expect(page.text.contains("id=chain>Intact: 10000 events in 1 streams"))
            #expect(page.text.contains("subscription.renewed (9999)"))
            let next = try #require(page.text.range(of: "id=next href=\"").map { page.text[$0.upperBound...].prefix { $0 != "\"" } })
            let second = try await api.send(.get, String(next).replacingOccurrences(of: "&amp;", with: "&"), headers: session.headers)
            #expect(second.status == .ok && second.text.components(separatedBy: "class=as-of").count - 1 == 50)
            print("console customer page, 10,000 events (debug build): \(page.headers[HTTPField.Name("Server-Timing")!] ?? "?")")
        }
    }
    @Test func financeChartsRevenueByCurrencyFromTheProductionPrices() async throws {
        let harness = try await APIHarness.make()
        let s = harness.signer
        let production = try s.sign(AppStorePayloads.transaction(id: "9001", original: "9001", environment: "Production"))
        let renewal = try s.sign(AppStorePayloads.renewalInfo(original: "9001", autoRenew: 0, environment: "Production"))
        let sandbox = try s.sign(AppStorePayloads.transaction(id: "9002", original: "9002", product: "coins", type: "Consumable", expires: nil))
        try await harness.test { api in
            let tenant = try await api.tenant()
            let upload = try await api.send(
                .post, "/v1/users/alice/transactions", headers: tenant.secret,
                json: UserRoutesTests.upload([production, sandbox], renewal: renewal))
            #expect(upload.status == .ok, "\(upload.text)")
            try await harness.project()
            let session = try #require(try await Self.signIn(api).1)
            let finance = try await api.send(.get, "/console/finance?account=\(tenant.accountID)", headers: session.headers)
            #expect(finance.status == .ok)
            // 9990 milliunits is 9.99 USD (integer arithmetic, the currency's own decimals); the Sandbox 9.99 does not count.
            for chart in ["Revenue per month, USD, gross", "Revenue per month, USD, net of refunds"] {
                let figure = try #require(Self.figure(chart, in: finance.text), "\(finance.text)")
                #expect(figure.contains(">9.99</text>") && figure.contains(">2026-01</text>"), "\(figure)")
            }
            #expect(!finance.text.contains(">19.98</text>"))
            #expect(finance.text.contains("New subscriptions per month"))
            let customer = try await api.send(.get, "/console/customers/\(tenant.appID)/alice", headers: session.headers)
            #expect(customer.text.contains("<td>9001</td>") && customer.text.contains("subscription.started"))
        }
    }

    /// The `<figure>` of the chart whose caption starts with `title`.
    static func figure(_ title: String, in page: String) -> String? {
        guard let start = page.range(of: "<figure><figcaption>" + title) else { return nil }
        guard let end = page[start.upperBound...].range(of: "</figure>") else { return nil }
        return String(page[start.lowerBound..<end.upperBound])
    }

    /// The console refuses to finalize a month that has not ended by the service clock, at the confirmation step
    /// already, and finalizes it from the first minute after it ends.
    @Test func aMonthThatHasNotEndedIsNotFinalizedFromTheConsole() async throws {
        let harness = try await APIHarness.make(now: Self.february2.adding(.seconds(-86_400 - 60)))  // 2026-01-31T23:59:00Z
        try await harness.test { api in
            let tenant = try await api.tenant()
            let session = try #require(try await Self.signIn(api).1)
            for month in ["2026-01", "2031-05"] {
                let fields = [("month", month), ("account", tenant.accountID), ("csrf", session.csrf)]
                for confirm in [[], [("confirm", "yes")]] {
                    let refused = try await Self.post(api, "/console/finance/finalize", cookie: session.cookie, fields + confirm)
                    #expect(refused.status == .conflict && refused.text.contains("\(month) has not ended yet"), "\(refused.text)")
                }
            }
            #expect(try await harness.pool.query("SELECT 1 FROM ledger.invoices").isEmpty)
            harness.clock.advance(seconds: 60)
            let fields = [("month", "2026-01"), ("account", tenant.accountID), ("csrf", session.csrf)]
            let confirm = try await Self.post(api, "/console/finance/finalize", cookie: session.cookie, fields)
            #expect(confirm.status == .ok && confirm.text.contains("Yes, finalize"), "\(confirm.text)")
            #expect(try await Self.post(api, "/console/finance/finalize", cookie: session.cookie, fields + [("confirm", "yes")]).status == .seeOther)
        }
    }

    /// Pages show times to the second in UTC, never wrapped, with the full microsecond value on hover; downloads keep
    /// the full value.
    @Test func timesShowSecondsInUTCWithTheFullValueOnHover() async throws {
        // 2026-11-26T14:54:31.5Z: a time with a fraction the pages must not show.
        let harness = try await APIHarness.make(now: Instant(microsecondsSinceEpoch: 1_795_704_871_500_000))
        try await harness.test { api in
            let tenant = try await api.tenant()
            #expect(
                try await api.send(
                    .post, "/v1/users/alice/external-purchases", headers: tenant.secret,
                    json: Self.purchase("pay-1", day: "2026-10-03T10:00:05.123456Z")
                ).status == .created)
            try await harness.project()
            let session = try #require(try await Self.signIn(api).1)
            let operations = try await api.send(.get, "/console/operations", headers: session.headers)
            // The sign-in, recorded at the service clock's now.
            #expect(
                operations.text.contains(
                    #"<td><time datetime="2026-11-26T14:54:31.500000Z" title="2026-11-26T14:54:31.500000Z">"#
                        + "2026-11-26 14:54:31 UTC</time></td><td>Ada</td><td>break-glass</td><td>console</td><td>sign_in</td>"), "\(operations.text)"
            )
            #expect(operations.text.contains("time{white-space:nowrap}"))
            let customer = try await api.send(.get, "/console/customers/\(tenant.appID)/alice", headers: session.headers)
            #expect(
                customer.text.contains(
                    #"<time datetime="2026-10-03T10:00:05.123456Z" title="2026-10-03T10:00:05.123456Z">"# + "2026-10-03 10:00:05 UTC</time>"),
                "\(customer.text)")
            for page in [operations.text, customer.text] {
                // No time shown with its fraction: only inside the attributes.
                #expect(!page.contains(".500000Z<") && !page.contains(".123456Z<"))
            }
            let fields = [("month", "2026-10"), ("account", tenant.accountID), ("csrf", session.csrf), ("confirm", "yes")]
            let invoicePath = try #require(try await Self.post(api, "/console/finance/finalize", cookie: session.cookie, fields).headers[.location])
            let download = try await api.send(.get, invoicePath + "/download?format=json", headers: session.headers)
            let finalizedAt = try #require(download.json["finalized_at"] as? String, "\(download.text)")
            #expect(finalizedAt.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z/) != nil, "\(finalizedAt)")
            let invoice = try await api.send(.get, invoicePath, headers: session.headers)
            #expect(invoice.text.contains(#"finalized <time datetime="\#(finalizedAt)" title="\#(finalizedAt)">"#), "\(invoice.text)")
        }
    }
}
