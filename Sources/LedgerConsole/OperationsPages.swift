import Hummingbird
import LedgerDomain
import LedgerOperators
import LedgerStore
import LedgerTenancy
import LedgerWebhooks

/// Operations: accounts and apps, keys (create, revoke), webhook endpoints and their delivery log with redelivery,
/// projection lag, digest status, and the latest rows of the operator record.
extension Console {
    func operationsPage(_ request: ConsoleRequest) async throws -> Response {
        let accounts = try await tenancy.accounts()
        let apps = try await tenancy.apps()
        let lag = try await logStatus.projectionLag()
        let digests = try await logStatus.digests()
        let actions = try await record.list(OperatorActionFilter(), limit: 20)
        let names = Dictionary(accounts.map { ($0.id, $0.name) }, uniquingKeysWith: { $1 })
        var body =
            "<h2>Accounts and apps</h2>"
            + HTML.table(
                ["Account", "App", "Bundle id"],
                apps.map { app in
                    [
                        HTML.escape("\(names[app.accountID] ?? "?") (\(app.accountID))"),
                        HTML.link("/console/operations/apps/\(HTML.urlComponent(app.id))", "\(app.name) (\(app.id))"), HTML.escape(app.bundleID)
                    ]
                }, id: "apps")
        let withoutApps = accounts.filter { account in !apps.contains { $0.accountID == account.id } }
        if !withoutApps.isEmpty {
            body += "<p>Accounts without apps: " + withoutApps.map { HTML.escape("\($0.name) (\($0.id))") }.joined(separator: ", ") + "</p>"
        }
        body +=
            "<h2>Projection lag</h2><p>Log head: position <b>\(lag.head)</b>.</p>"
            + HTML.table(
                ["Projection", "Checkpoint", "Behind (events' positions)", "Updated"],
                lag.checkpoints.map {
                    [HTML.escape($0.name), String($0.position), String(max(0, lag.head - $0.position)), HTML.time($0.updatedAt)]
                }, id: "lag")
        body +=
            "<h2>Signed digests</h2>"
            + HTML.table(
                ["App", "Events covered", "Signed"],
                digests.map {
                    [HTML.escape($0.app), String($0.count), HTML.time($0.at)]
                }, id: "digests")
        body +=
            "<h2>Latest operator actions</h2>" + Self.actionsTable(actions)
            + "<p>" + HTML.link("/console/operators/record", "The whole operator record, filtered and downloadable") + "</p>"
        return request.page("Operations", body)
    }

    func findApp(_ request: ConsoleRequest) async throws -> AppRecord {
        let id = try request.path("app")
        guard let app = try await tenancy.app(id: id) else { throw ConsoleError(.notFound, "There is no app \(id).") }
        return app
    }

    func appPage(_ request: ConsoleRequest, created: (kind: String, key: String)? = nil) async throws -> Response {
        let app = try await findApp(request)
        let keys = try await tenancy.keys(app: app.id)
        let endpoints = try await webhooks.endpoints(app: app.id)
        let base = "/console/operations/apps/\(HTML.urlComponent(app.id))"
        var body =
            "<p>App <b>\(HTML.escape(app.name))</b> (\(HTML.escape(app.id))), bundle \(HTML.escape(app.bundleID)), account "
            + "\(HTML.escape(app.accountID)).</p>"
        if let created {
            body +=
                "<p class=notice id=new-key>New \(HTML.escape(created.kind)) key (shown once, copy it now): "
                + "<code>\(HTML.escape(created.key))</code></p>"
        }
        body +=
            "<h2>Keys</h2>"
            + HTML.table(
                ["Id", "Kind", "Name", "Created", "Revoked", ""],
                keys.map { key in
                    [
                        HTML.escape(key.id), HTML.escape(key.kind.rawValue), HTML.escape(key.name ?? ""), HTML.time(key.createdAt),
                        HTML.time(key.revokedAt),
                        key.revokedAt == nil
                            ? request.form(
                                action: "\(base)/keys/\(HTML.urlComponent(key.id))/revoke", roles: Needs.tenancyWrites, fields: "", button: "Revoke",
                                confirm: true)
                            : ""
                    ]
                }, id: "keys")
        body += request.form(
            action: "\(base)/keys", roles: Needs.tenancyWrites,
            fields: """
                <label>Kind <select name=kind><option value=secret>secret</option><option value=public>public</option></select></label>
                <label>Name <input name=name maxlength=100></label>
                """, button: "Create key")
        body +=
            "<h2>Webhook endpoints</h2>"
            + HTML.table(
                ["Endpoint", "URL", "Status", "Event types", ""],
                endpoints.map { e in
                    [
                        HTML.escape(e.endpointID), HTML.escape(e.url), HTML.escape(e.status.rawValue + (e.disabledReason.map { ": \($0)" } ?? "")),
                        HTML.escape(e.eventTypes.isEmpty ? "all" : e.eventTypes.joined(separator: ", ")),
                        HTML.link("\(base)/webhooks/\(HTML.urlComponent(e.endpointID))", "Delivery log")
                    ]
                }, id: "endpoints")
        return request.page("App \(app.name)", body)
    }

    func createKey(_ request: ConsoleRequest) async throws -> Response {
        let app = try await findApp(request)
        guard let kind = APIKeyKind(rawValue: try request.field("kind")) else { throw ConsoleError(.badRequest, "`kind` is secret or public.") }
        let name = request.form["name"].flatMap { $0.isEmpty ? nil : $0 }
        guard (name?.count ?? 0) <= 100 else { throw ConsoleError(.badRequest, "A key's name is at most 100 characters.") }
        let (record, key) = try await tenancy.createKey(app: app.id, kind: kind, name: name)
        await recordDone(
            "key.create", target: record.id, detail: "\(kind.rawValue) key of \(app.id)", by: try request.operatorActor())
        tenancyChanged()
        return try await appPage(request, created: (kind.rawValue, key))
    }

    func revokeKey(_ request: ConsoleRequest) async throws -> Response {
        let app = try await findApp(request)
        let keyID = try request.path("key")
        guard try await tenancy.revokeKey(app: app.id, keyID: keyID) != nil else {
            throw ConsoleError(.notFound, "There is no live key \(keyID) of app \(app.id).")
        }
        await recordDone("key.revoke", target: keyID, detail: "key of \(app.id)", by: try request.operatorActor())
        tenancyChanged()
        return Self.redirect("/console/operations/apps/\(HTML.urlComponent(app.id))")
    }

    func deliveriesPage(_ request: ConsoleRequest) async throws -> Response {
        let app = try await findApp(request)
        let endpointID = try request.path("endpoint")
        let endpoint = try await webhooks.endpoint(app: app.id, id: endpointID)
        let deliveries = try await webhooks.deliveries(app: app.id, endpoint: endpoint.endpointID)
        let base = "/console/operations/apps/\(HTML.urlComponent(app.id))/webhooks/\(HTML.urlComponent(endpoint.endpointID))"
        var body =
            "<p>Endpoint \(HTML.escape(endpoint.endpointID)) → <code>\(HTML.escape(endpoint.url))</code>, "
            + "\(HTML.escape(endpoint.status.rawValue)).</p>"
        if request.query("redelivered") != nil { body += "<p class=notice>Delivery queued again.</p>" }
        body += HTML.table(
            ["Delivery", "Position", "Event", "User", "Status", "Attempts", "Next attempt", "Created", ""],
            deliveries.map { d in
                [
                    HTML.escape(d.deliveryID), String(d.position), HTML.escape(d.eventType), HTML.escape(d.appUserID ?? "—"),
                    HTML.escape(d.status.rawValue),
                    String(d.attempts), HTML.time(d.nextAttemptAt), HTML.time(d.createdAt),
                    request.form(
                        action: "\(base)/deliveries/\(HTML.urlComponent(d.deliveryID))/redeliver", roles: Needs.redelivery, fields: "",
                        button: "Redeliver")
                ]
            }, id: "deliveries")
        return request.page("Deliveries", body)
    }

    func redeliver(_ request: ConsoleRequest) async throws -> Response {
        let app = try await findApp(request)
        let (endpointID, deliveryID) = (try request.path("endpoint"), try request.path("delivery"))
        let count = try await webhooks.redeliver(app: app.id, endpoint: endpointID, .one(deliveryID))
        guard count == 1 else { throw ConsoleError(.notFound, "There is no delivery \(deliveryID) to this endpoint.") }
        await recordDone(
            "webhook.redeliver", target: deliveryID, detail: "endpoint \(endpointID) of \(app.id)", by: try request.operatorActor())
        return Self.redirect("/console/operations/apps/\(HTML.urlComponent(app.id))/webhooks/\(HTML.urlComponent(endpointID))?redelivered=1")
    }
}
