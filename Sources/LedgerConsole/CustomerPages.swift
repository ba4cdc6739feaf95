import Foundation
import HTTPTypes
import Hummingbird
import LedgerDomain
import LedgerOperators
import LedgerPrivacy
import LedgerRecording
import LedgerStore
import LedgerTenancy
import UTCTime

/// Support's side: find a user, see what they have, their timeline in ledger order, any state as of any event, and
/// the hash-chain proof of their streams.
extension Console {
    static let timelinePage = 50

    func customersPage(_ request: ConsoleRequest) async throws -> Response {
        let apps = try await tenancy.apps()
        let chosen = request.query("app") ?? apps.first?.id
        let options = apps.map { app in
            HTML.option(app.id, "\(app.name) (\(app.id))", selected: app.id == chosen)
        }.joined()
        var body = """
            <form method=get action="/console/customers" id=find>
            <label>App <select name=app id=app>\(options)</select></label>
            <label>App user id, original transaction id or transaction id
            <input name=q id=q size=40 value="\(HTML.escape(request.query("q") ?? ""))"></label>
            <button type=submit>Find</button></form>
            """
        if let q = request.query("q"), let app = chosen {
            guard q.utf8.count <= 256 else { throw ConsoleError(.badRequest, "Search for at most 256 bytes.") }
            let owners = try await users.findOwners(
                app: app, query: q, pseudonym: try await recorder.identities.find(app: app, user: q))
            // The log names users by pseudonym; support finds and sees them by the app's ids (erased ones by pseudonym).
            let ids = try await recorder.identities.userIDs(app: app, pseudonyms: owners)
            body += "<h2>Found</h2>"
            body += HTML.table(
                ["App user"],
                owners.map { ids[$0] ?? $0 }.sorted().map { user in
                    [HTML.link("/console/customers/\(HTML.urlComponent(app))/\(HTML.urlComponent(user))", user)]
                }, id: "found")
        }
        return request.page("Customers", body)
    }

    func appCatalog(app: String) async throws -> Catalog {
        let products = try await tenancy.products(app: app)
        return Catalog(entitlementsByProduct: Dictionary(products.map { ($0.productID, $0.entitlements) }, uniquingKeysWith: { $1 }))
    }

    /// The streams and holdings of the app user `user` (none for a user the ledger never heard of), the pseudonym the
    /// log names them by, and their erasure's certificate if they were erased (support then sees their events, which
    /// name only the pseudonym, with their non-personal facts).
    func history(app: String, user: String) async throws
        -> (streams: [String], owned: OwnedSummaries, pseudonym: String?, erased: SignedErasureCertificate?)
    {
        var erased: SignedErasureCertificate?
        var found = try await recorder.identities.find(app: app, user: user)
        if found == nil {
            erased = try await recorder.identities.erasure(app: app, user: user)
            found = erased?.certificate.pseudonym
        }
        guard let pseudonym = found else { return ([], OwnedSummaries(), nil, nil) }
        let (streams, owned) = try await users.ownedStreams(app: app, pseudonym: pseudonym)
        return (streams, owned, pseudonym, erased)
    }

    func customerPage(_ request: ConsoleRequest) async throws -> Response {
        let (app, user) = (try request.path("app"), try request.path("user"))
        let type = request.query("type")
        let after = try request.integer("after", default: 0)
        let (streams, owned, pseudonym, erased) = try await history(app: app, user: user)
        let catalog = try await appCatalog(app: app)
        let now = clock.now()
        async let events = users.events(app: app, streams: streams, type: type, after: after, limit: Self.timelinePage)
        async let types = users.eventTypes(app: app, streams: streams)
        async let chain = users.chainCheck(app: app, streams: streams)
        let snapshot = UserSnapshot(appUserID: pseudonym ?? user, owned: owned, catalog: catalog, at: now)
        let base = "/console/customers/\(HTML.urlComponent(app))/\(HTML.urlComponent(user))"

        var body = "<p>App <code>\(HTML.escape(app))</code>, user <code id=user>\(HTML.escape(user))</code>, at \(HTML.time(now)).</p>"
        if let erased {
            let c = erased.certificate
            body +=
                "<p class=bad id=erased>Erased \(HTML.time(c.erasedAt)) by \(HTML.escape(c.erasedBy)): the ledger keeps this user's events "
                + "under the pseudonym <code>\(HTML.escape(c.pseudonym))</code> with their non-personal facts, and nothing that ties them "
                + "to an app user id.</p>"
        }
        let products = snapshot.productsStatus.sorted { $0.key < $1.key }
        body +=
            "<div class=cols><div><h2>Products status</h2>"
            + HTML.table(
                ["Product", "Status"],
                products.map {
                    [HTML.escape($0.key), "<span class=\($0.value == .active ? "ok" : "bad")>\($0.value.rawValue)</span>"]
                }, id: "products") + "</div>"
        body +=
            "<div><h2>Entitlements</h2>"
            + HTML.table(
                ["Entitlement", "Active", "Expires", "Granted by"],
                snapshot.entitlements.values.sorted { $0.entitlementID < $1.entitlementID }.map {
                    [HTML.escape($0.entitlementID), $0.isActive ? "yes" : "no", HTML.time($0.expiresAt), HTML.escape($0.grantingProductID)]
                }, id: "entitlements") + "</div></div>"
        body += "<h2>Grants</h2>" + grantsSection(request, owned.grants, catalog: catalog, base: base, at: now)
        body +=
            "<h2>Subscriptions</h2>"
            + HTML.table(
                ["Original transaction", "Product", "State now", "Reported", "Expires", "Grace ends", "Auto-renew", "Activated", "Environment"],
                owned.subscriptions.filter(\.isKnown).sorted { $0.originalTransactionID < $1.originalTransactionID }.map { s in
                    [
                        HTML.escape(s.originalTransactionID), HTML.escape(s.productID ?? "—"), HTML.escape(s.state(at: now)?.storedValue ?? "—"),
                        HTML.escape(s.state?.storedValue ?? "—"), HTML.time(s.expiresAt), HTML.time(s.graceExpiresAt),
                        s.autoRenew.map { $0 ? "on" : "off" } ?? "—", HTML.time(s.activatedAt), HTML.escape(s.environment.map { "\($0)" } ?? "—")
                    ]
                }, id: "subscriptions")
        body +=
            "<h2>One-time purchases</h2>"
            + HTML.table(
                ["Original transaction", "Product", "Purchased", "Consumed", "Standing"],
                owned.purchases.filter(\.isKnown).sorted { $0.originalTransactionID < $1.originalTransactionID }.map { p in
                    [
                        HTML.escape(p.originalTransactionID), HTML.escape(p.details?.productID ?? "—"), HTML.time(p.details?.purchasedAt),
                        HTML.time(p.consumedAt), HTML.escape(p.standing?.rawValue ?? "—")
                    ]
                }, id: "purchases")
        body +=
            "<h2>Unconsumed purchases</h2>"
            + HTML.table(
                ["Transaction", "Product", "Purchased", "Quantity", ""],
                snapshot.unconsumedPurchases.map { u in
                    [
                        HTML.escape(u.transactionID), HTML.escape(u.productID), HTML.time(u.purchasedAt), String(u.quantity),
                        request.form(
                            action: "\(base)/purchases/\(HTML.urlComponent(u.originalTransactionID))/consume", roles: Needs.customerWrites,
                            fields: "", button: "Consume", confirm: true)
                    ]
                }, id: "unconsumed")

        let report = try await chain
        body += "<h2>Hash chain</h2>"
        if report.isIntact {
            body += "<p class=ok id=chain>Intact: \(report.eventsChecked) events in \(report.streams) streams link and match their hashes.</p>"
        } else {
            body +=
                "<p class=bad id=chain>Broken: \(report.problems.count) problem(s) in \(report.eventsChecked) events.</p>"
                + HTML.table(
                    ["Position", "Kind", "Problem"],
                    report.problems.map {
                        [String($0.position), HTML.escape($0.kind.rawValue), HTML.escape($0.message)]
                    })
        }

        let typeOptions = try await types.map { entry in
            HTML.option(entry.type, "\(entry.type) (\(entry.count))", selected: entry.type == type)
        }.joined()
        body += """
            <h2>Timeline</h2><form method=get action="\(HTML.escape(base))" id=filter>
            <label>Type <select name=type id=type><option value="">all</option>\(typeOptions)</select></label>
            <button type=submit>Filter</button></form>
            """
        let page = try await events
        // Sealed fields opened for the person reading, "(erased)" where the user's erasure destroyed the key.
        let payloads = try await recorder.identities.fields.revealing(app: app, page.map(\.payload))
        body += HTML.table(
            ["Position", "Type", "Business time", "Recorded", "Source", "Stream", "Payload", ""],
            zip(page, payloads).map { event, payload in
                [
                    String(event.position), HTML.escape(event.type), HTML.time(event.occurredAt), HTML.time(event.recordedAt),
                    HTML.escape(Self.source(event.metadata)), HTML.escape(event.streamID),
                    "<details><summary>payload</summary><pre>\(HTML.escape(payload))</pre></details>",
                    "<a class=as-of href=\"\(HTML.escape(base))/as-of/\(event.position)\">as of this event</a>"
                ]
            }, id: "timeline")
        var links: [String] = []
        let typeQuery = type.map { "&type=" + HTML.urlComponent($0) } ?? ""
        if after > 0 { links.append("<a href=\"\(HTML.escape(base))?after=0\(HTML.escape(typeQuery))\">First page</a>") }
        if page.count == Self.timelinePage, let last = page.last {
            links.append("<a id=next href=\"\(HTML.escape(base))?after=\(last.position)\(HTML.escape(typeQuery))\">Next page</a>")
        }
        body += "<p>\(links.joined(separator: " · "))</p>"
        return request.page("Customer \(user)", body)
    }

    /// Where an event came from, from its metadata's `source` (notification, receipt, sdk, api, import…).
    static func source(_ metadata: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(metadata.utf8)) as? [String: Any] else { return "—" }
        return (object["source"] as? String) ?? "—"
    }

    /// The state of the user the log names `pseudonym`, one line per fact, for comparing two states.
    static func stateLines(pseudonym user: String, owned: OwnedSummaries, catalog: Catalog, at instant: Instant) -> [(key: String, value: String)] {
        let mine = owned.subscriptions.filter { $0.ownerUserID == user && $0.isKnown }
        let myPurchases = owned.purchases.filter { $0.ownerUserID == user && $0.isKnown }
        let snapshot = UserSnapshot(appUserID: user, owned: owned, catalog: catalog, at: instant)
        var lines: [(String, String)] = []
        for (product, status) in snapshot.productsStatus.sorted(by: { $0.key < $1.key }) { lines.append(("product \(product)", status.rawValue)) }
        for entitlement in snapshot.entitlements.values.sorted(by: { $0.entitlementID < $1.entitlementID }) {
            lines.append(
                (
                    "entitlement \(entitlement.entitlementID)",
                    (entitlement.isActive ? "active" : "inactive") + (entitlement.expiresAt.map { " until \(HTML.timeText($0))" } ?? "")
                ))
        }
        for s in mine.sorted(by: { $0.originalTransactionID < $1.originalTransactionID }) {
            let expires = s.expiresAt.map(HTML.timeText) ?? "—"
            lines.append(
                (
                    "subscription \(s.originalTransactionID)",
                    "\(s.state(at: instant)?.storedValue ?? "unknown") · \(s.productID ?? "?") · expires \(expires)"
                ))
        }
        for p in myPurchases.sorted(by: { $0.originalTransactionID < $1.originalTransactionID }) {
            let consumed = p.consumedAt.map { "consumed \(HTML.timeText($0))" } ?? "not consumed"
            lines.append(("purchase \(p.originalTransactionID)", "\(p.details?.productID ?? "?") · \(consumed) · \(p.standing?.rawValue ?? "valid")"))
        }
        for u in snapshot.unconsumedPurchases { lines.append(("unconsumed \(u.transactionID)", "\(u.productID) × \(u.quantity)")) }
        for g in owned.grants where g.appUserID == user {
            lines.append(("grant \(g.grantID)", "\(g.entitlementID) · \(Self.grantState(g, at: instant)) · expires \(HTML.timeText(g.expiresAt))"))
        }
        return lines
    }

    func asOfPage(_ request: ConsoleRequest) async throws -> Response {
        let (app, user) = (try request.path("app"), try request.path("user"))
        guard let position = Int64(try request.path("position")), position > 0 else {
            throw ConsoleError(.badRequest, "The position must be a whole number > 0.")
        }
        let (streams, owned, found, _) = try await history(app: app, user: user)
        let pseudonym = found ?? ""
        let catalog = try await appCatalog(app: app)
        let recorded = try await users.events(app: app, streams: streams, through: position)
        guard let event = recorded.last, event.position == position else {
            throw ConsoleError(.notFound, "There is no event at position \(position) in this user's timeline.")
        }
        // The pure reducers, over the user's events up to this one, evaluated when the ledger recorded it.
        let domain = recorded.compactMap { DomainEventDecoding.decode($0) }
        let then = event.recordedAt
        let asRecorded = OwnedSummaries(
            subscriptions: foldAll(SubscriptionStatusReducer.self, events: domain, asOf: nil).values.map(\.summary),
            purchases: foldAll(PurchaseRecordReducer.self, events: domain, asOf: nil).values.map(\.summary),
            grants: fold(GrantsReducer.self, key: pseudonym, events: domain, asOf: nil).summaries)
        let before = Self.stateLines(pseudonym: pseudonym, owned: asRecorded, catalog: catalog, at: then)
        let now = clock.now()
        let current = Self.stateLines(pseudonym: pseudonym, owned: owned, catalog: catalog, at: now)
        let thenByKey = Dictionary(before.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        let nowByKey = Dictionary(current.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        var keys = before.map(\.key)
        for line in current where thenByKey[line.key] == nil { keys.append(line.key) }
        let rows = keys.map { key -> String in
            let (a, b) = (thenByKey[key], nowByKey[key])
            let changed = a != b
            return "<tr\(changed ? " class=changed" : "")><td>\(HTML.escape(key))</td><td>\(HTML.escape(a ?? "—"))</td>"
                + "<td>\(HTML.escape(b ?? "—"))</td><td>\(changed ? "changed" : "")</td></tr>"
        }
        let base = "/console/customers/\(HTML.urlComponent(app))/\(HTML.urlComponent(user))"
        let changes = rows.filter { $0.hasPrefix("<tr class=changed>") }.count
        let body = """
            <p>User <code>\(HTML.escape(user))</code> as of event <b>\(position)</b> (\(HTML.escape(event.type)), business time \
            \(HTML.time(event.occurredAt)), recorded \(HTML.time(then))): the user's \(recorded.count) events up to it \
            folded with the ledger's reducers and evaluated at its recorded time, beside the state now (\(HTML.time(now))).
            <span id=changes>\(changes) difference(s)</span> are marked.</p>
            <table id=as-of><thead><tr><th>Fact</th><th>As of this event</th><th>Now</th><th></th></tr></thead><tbody>
            \(rows.joined(separator: "\n"))
            </tbody></table>
            <p><a href="\(HTML.escape(base))">Back to the customer</a></p>
            """
        return request.page("As of event \(position)", body)
    }

    /// A grant's state at `instant`, in words.
    static func grantState(_ grant: GrantSummary, at instant: Instant) -> String {
        if let revoked = grant.revokedAt { return "revoked \(HTML.timeText(revoked))" }
        return grant.isActive(at: instant) ? "active" : "expired"
    }

    /// The user's grants, each active one with a revoke form, and the form that gives one (support).
    func grantsSection(_ request: ConsoleRequest, _ grants: [GrantSummary], catalog: Catalog, base: String, at now: Instant) -> String {
        var html = HTML.table(
            ["Grant", "Entitlement", "Given", "Expires", "State", ""],
            grants.map { g in
                [
                    HTML.escape(g.grantID), HTML.escape(g.entitlementID), HTML.time(g.grantedAt), HTML.time(g.expiresAt),
                    HTML.escape(Self.grantState(g, at: now)),
                    g.isActive(at: now)
                        ? request.form(
                            action: "\(base)/grants/\(HTML.urlComponent(g.grantID))/revoke", roles: Needs.customerWrites,
                            fields: "<input name=reason maxlength=500 placeholder=\"reason (optional)\">", button: "Revoke", confirm: true) : ""
                ]
            }, id: "grants")
        let entitlements = Set(catalog.entitlementsByProduct.values.joined()).sorted()
        if !entitlements.isEmpty {
            let options = entitlements.map { HTML.option($0, $0, selected: false) }.joined()
            html += request.form(
                action: "\(base)/grants", roles: Needs.customerWrites,
                fields: """
                    <label>Entitlement <select name=entitlement id=grant-entitlement>\(options)</select></label> \
                    <label>Days <input name=days id=grant-days type=number min=1 max=\(GrantRules.longestDays) value=30 required></label> \
                    <label>Reason <input name=reason id=grant-reason maxlength=500 required></label> \
                    <input type=hidden name=form_key value=\(RandomToken.identifier(prefix: "form_"))>
                    """, button: "Give grant")
        }
        return html
    }

    /// Support gives a customer a promotional entitlement (`LedgerRecorder.grant`, the API's operation). The form's
    /// `form_key` is the grant's idempotency key and its expiry is counted from the whole minute, so a form sent twice
    /// (a double click, a reload) gives one grant; sent again after that minute, it is refused with what to do.
    func giveGrant(_ request: ConsoleRequest) async throws -> Response {
        let (appID, user) = (try request.path("app"), try request.path("user"))
        guard let app = try await tenancy.app(id: appID) else { throw ConsoleError(.notFound, "There is no app \(appID).") }
        let actor = try request.operatorActor()
        guard let days = Int64(try request.field("days")), (1...GrantRules.longestDays).contains(days) else {
            throw ConsoleError(.badRequest, "Days must be a whole number from 1 to \(GrantRules.longestDays).")
        }
        let formKey = request.form["form_key"].flatMap { GrantRules.isIdempotencyKey($0) ? $0 : nil }
        let minute = Instant(epochMilliseconds: clock.now().epochMilliseconds / 60_000 * 60_000)
        let by = actor.eventActor
        let (grant, given): (EntitlementGrant, Bool)
        do {
            (grant, _, given) = try await recorder.grant(
                app: app, user: user, entitlementID: try request.field("entitlement"), expiresAt: minute.adding(days: days),
                reason: try request.field("reason"), by: by, metadata: EventMetadata(source: "console", requestID: request.requestID, actor: by),
                idempotencyKey: formKey)
        } catch GrantError.idempotencyKeyReused(let grantID) {
            throw ConsoleError(
                .conflict, "This form was sent already and gave grant \(grantID). Open the customer's page again to give another.")
        } catch let error as GrantError {
            throw ConsoleError(.badRequest, "Not given: \(error.description).")
        }
        // The operator record names the user by pseudonym, like the log (an erased user's id must not stay in it).
        if given {
            await recordDone(
                "grant.give", target: grant.grantID, detail: "\(grant.entitlementID) to user:\(grant.appUserID) in \(appID) for \(days) days",
                by: actor)
        }
        return Self.redirect("/console/customers/\(HTML.urlComponent(appID))/\(HTML.urlComponent(user))")
    }

    /// Support ends a grant early.
    func revokeGrant(_ request: ConsoleRequest) async throws -> Response {
        let (appID, user, grantID) = (try request.path("app"), try request.path("user"), try request.path("grant"))
        guard let app = try await tenancy.app(id: appID) else { throw ConsoleError(.notFound, "There is no app \(appID).") }
        let actor = try request.operatorActor()
        let by = actor.eventActor
        let given: EntitlementGrant
        do {
            given = try await recorder.revokeGrant(
                app: app, user: user, grantID: grantID, reason: request.form["reason"] ?? "", by: by,
                metadata: EventMetadata(source: "console", requestID: request.requestID, actor: by)
            ).given
        } catch let error as GrantError {
            let status: HTTPResponse.Status = if case .unknownGrant = error { .notFound } else { .conflict }
            throw ConsoleError(status, "Not revoked: \(error.description).")
        }
        await recordDone("grant.revoke", target: grantID, detail: "of user:\(given.appUserID) in \(appID)", by: actor)
        return Self.redirect("/console/customers/\(HTML.urlComponent(appID))/\(HTML.urlComponent(user))")
    }

    /// Support delivers a customer's consumable by hand: the same consumption (`LedgerRecorder.consume`, the domain's
    /// rules, the stream's version) as the API's, recorded in the log with the operator as its actor and in the
    /// operator record.
    func consume(_ request: ConsoleRequest) async throws -> Response {
        let (appID, user, purchase) = (try request.path("app"), try request.path("user"), try request.path("purchase"))
        guard let app = try await tenancy.app(id: appID) else { throw ConsoleError(.notFound, "There is no app \(appID).") }
        let actor = try request.operatorActor()
        let metadata = EventMetadata(
            source: "console", requestID: request.requestID, actor: actor.eventActor)
        do {
            _ = try await recorder.consume(app: app, originalTransactionID: purchase, by: user, metadata: metadata)
        } catch RecordingError.notConsumed(let refusal) {
            let status: HTTPResponse.Status = if case .unknownPurchase = refusal { .notFound } else { .conflict }
            throw ConsoleError(status, "Not consumed: \(refusal.description(productType: \.apiName)).")
        } catch RecordingError.subscriptionNotConsumable(let id) {
            throw ConsoleError(.conflict, "Not consumed: purchase \(id) is a subscription; only consumables are consumed.")
        }
        let pseudonym = (try? await recorder.identities.find(app: appID, user: user)) ?? nil
        await recordDone("purchase.consume", target: purchase, detail: "of user:\(pseudonym ?? "?") in \(appID)", by: actor)
        return Self.redirect("/console/customers/\(HTML.urlComponent(appID))/\(HTML.urlComponent(user))")
    }
}
