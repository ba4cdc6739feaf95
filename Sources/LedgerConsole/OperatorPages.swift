import Foundation
import HTTPTypes
import Hummingbird
import LedgerDomain
import LedgerOperators
import LedgerStore
import NIOCore
import UTCTime

/// Operators: the list, and for admins adding, disabling, changing a role or password and lifting a sign-in lock;
/// every operator's own API tokens (made, shown once, revoked); and the operator record, filtered and downloadable.
/// The stores record each change in the operator record themselves.
extension Console {
    func operatorsPage(_ request: ConsoleRequest, shownOnce: String? = nil) async throws -> Response {
        var body = shownOnce.map { "<p class=notice id=shown-once>\($0)</p>" } ?? ""
        let session = try request.operatorActor()
        if let operators {
            let all = try await operators.list()
            let roles = OperatorRole.allCases.map { HTML.option($0.rawValue, $0.rawValue, selected: false) }.joined()
            body +=
                "<h2>Operators</h2>"
                + HTML.table(
                    ["Name", "Role", "One-time password", "Status", "Created", ""],
                    all.map { o in
                        let base = "/console/operators/\(HTML.urlComponent(o.name))"
                        let manage =
                            o.isDisabled
                            ? ""
                            : request.form(
                                action: base + "/role", roles: Needs.operatorWrites,
                                fields: "<select name=role>\(roles)</select>", button: "Set role")
                                + request.form(
                                    action: base + "/password", roles: Needs.operatorWrites,
                                    fields: "<input name=password type=password minlength=12 placeholder=\"new password\" required>",
                                    button: "Reset password")
                                + request.form(action: base + "/unlock", roles: Needs.operatorWrites, fields: "", button: "Unlock")
                                + request.form(action: base + "/disable", roles: Needs.operatorWrites, fields: "", button: "Disable", confirm: true)
                        return [
                            HTML.escape(o.name), HTML.escape(o.role.rawValue), o.hasOneTimePassword ? "yes" : "no",
                            o.isDisabled ? "disabled " + HTML.time(o.disabledAt) : "active", HTML.time(o.createdAt), manage
                        ]
                    }, id: "operators")
            if request.may(Needs.operatorWrites) {
                body +=
                    "<h2>Add an operator</h2>"
                    + request.form(
                        action: "/console/operators", roles: Needs.operatorWrites,
                        fields: """
                            <label>Name <input name=name id=new-name required maxlength=64></label> \
                            <label>Role <select name=role id=new-role>\(roles)</select></label> \
                            <label>Password <input name=password id=new-password type=password minlength=12 required></label> \
                            <label><input type=checkbox name=otp value=yes checked> one-time password (required for admin and finance)\
                            </label>
                            """, button: "Add")
            }
        }
        if !session.operatorID.isEmpty {
            let mine = try await tokens.list(operatorName: session.name)
            body +=
                "<h2>Your API tokens</h2>"
                + HTML.table(
                    ["Token", "Label", "Role", "Expires", "Status", ""],
                    mine.map { t in
                        [
                            HTML.escape(t.id), HTML.escape(t.name), HTML.escape(t.role.rawValue), HTML.time(t.expiresAt),
                            t.revokedAt == nil ? "live" : "revoked " + HTML.time(t.revokedAt),
                            t.revokedAt == nil
                                ? request.form(
                                    action: "/console/operators/me/tokens/\(HTML.urlComponent(t.id))/revoke", roles: nil, fields: "",
                                    button: "Revoke", confirm: true) : ""
                        ]
                    }, id: "tokens")
                + request.form(
                    action: "/console/operators/me/tokens", roles: nil,
                    fields: """
                        <label>Label <input name=label id=token-label maxlength=200></label> \
                        <label>Role <select name=role id=token-role>\(HTML.option("", "my role (\(session.role))", selected: true))\
                        \(HTML.option("auditor", "auditor (read-only)", selected: false))</select></label> \
                        <label>Days <input name=days id=token-days type=number min=1 max=366 value=90></label>
                        """, button: "Create a token")
        }
        body += "<p>" + HTML.link("/console/operators/record", "The operator record") + "</p>"
        return request.page("Operators", body)
    }

    func requireOperators() throws -> OperatorStore {
        guard let operators else {
            throw ConsoleError(.serviceUnavailable, "Operators need the server's master key (LEDGER_MASTER_KEY_FILE).")
        }
        return operators
    }

    func addOperator(_ request: ConsoleRequest) async throws -> Response {
        let operators = try requireOperators()
        guard let role = OperatorRole(rawValue: try request.field("role")) else {
            throw ConsoleError(.badRequest, "A role is one of \(OperatorRole.names).")
        }
        let name = try request.field("name")
        let (record, uri) = try await Self.operatorChange {
            try await operators.add(
                name: name, role: role, password: request.form["password"] ?? "", oneTimePassword: request.form["otp"] == "yes",
                by: try request.operatorActor(), at: clock.now())
        }
        let secret = uri.map { " Its one-time password, shown once, for an authenticator app: <code id=otpauth>\(HTML.escape($0))</code>" }
        return try await operatorsPage(request, shownOnce: "Added \(HTML.escape(record.name)) (\(record.role.rawValue)).\(secret ?? "")")
    }

    func disableOperator(_ request: ConsoleRequest) async throws -> Response {
        let (operators, name) = (try requireOperators(), try request.path("name"))
        _ = try await Self.operatorChange { try await operators.disable(name: name, by: try request.operatorActor(), at: clock.now()) }
        return Self.redirect("/console/operators")
    }

    func setOperatorRole(_ request: ConsoleRequest) async throws -> Response {
        let (operators, name) = (try requireOperators(), try request.path("name"))
        guard let role = OperatorRole(rawValue: try request.field("role")) else {
            throw ConsoleError(.badRequest, "A role is one of \(OperatorRole.names).")
        }
        let (_, uri) = try await Self.operatorChange {
            try await operators.setRole(name: name, role: role, by: try request.operatorActor(), at: clock.now())
        }
        guard let uri else { return Self.redirect("/console/operators") }
        return try await operatorsPage(
            request,
            shownOnce: "\(HTML.escape(name)) now needs a one-time password. Shown once: <code id=otpauth>\(HTML.escape(uri))</code>")
    }

    func resetOperatorPassword(_ request: ConsoleRequest) async throws -> Response {
        let (operators, name) = (try requireOperators(), try request.path("name"))
        _ = try await Self.operatorChange {
            try await operators.resetPassword(
                name: name, password: request.form["password"] ?? "", by: try request.operatorActor(), at: clock.now())
        }
        return Self.redirect("/console/operators")
    }

    func unlockOperator(_ request: ConsoleRequest) async throws -> Response {
        let (operators, name) = (try requireOperators(), try request.path("name"))
        let lifted = try await operators.unlock(name: name, by: try request.operatorActor(), at: clock.now())
        return try await operatorsPage(request, shownOnce: lifted ? "Unlocked \(HTML.escape(name))." : "\(HTML.escape(name)) was not locked.")
    }

    /// A token for the signed-in operator (break-glass sessions have no operator to give one to).
    func createToken(_ request: ConsoleRequest) async throws -> Response {
        let actor = try request.operatorActor()
        guard !actor.operatorID.isEmpty else { throw ConsoleError(.forbidden, "A break-glass session has no operator to make a token for.") }
        let role = try (request.form["role"]).flatMap { text throws -> OperatorRole? in
            guard !text.isEmpty else { return nil }
            guard let role = OperatorRole(rawValue: text) else { throw ConsoleError(.badRequest, "A role is one of \(OperatorRole.names).") }
            return role
        }
        guard let days = Int64(request.form["days"] ?? "90"), (1...366).contains(days) else {
            throw ConsoleError(.badRequest, "A token lives 1 to 366 days.")
        }
        let label = request.form["label"] ?? ""
        guard label.utf8.count <= 200 else { throw ConsoleError(.badRequest, "A label is at most 200 bytes.") }
        let (token, text) = try await Self.operatorChange {
            try await tokens.create(
                operatorName: actor.name, role: role, name: label, life: .seconds(days * 86_400), by: actor, at: clock.now())
        }
        return try await operatorsPage(
            request,
            shownOnce: "Token \(HTML.escape(token.id)) (\(token.role.rawValue)), shown once: <code id=new-token>\(HTML.escape(text))</code>")
    }

    /// Revokes one of the signed-in operator's own tokens (an admin revokes others' with `ledger operators tokens revoke`).
    func revokeToken(_ request: ConsoleRequest) async throws -> Response {
        let actor = try request.operatorActor()
        let id = try request.path("token")
        guard try await tokens.list(operatorName: actor.name).contains(where: { $0.id == id }) else {
            throw ConsoleError(.notFound, "You have no token \(id).")
        }
        _ = try await tokens.revoke(id: id, by: actor, at: clock.now())
        return Self.redirect("/console/operators")
    }

    /// Operator errors as a 4xx page that says what is wrong.
    static func operatorChange<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as OperatorError {
            let status: HTTPResponse.Status =
                if case .unknownOperator = error { .notFound } else if case .nameTaken = error { .conflict } else { .badRequest }
            throw ConsoleError(status, error.description.prefix(1).uppercased() + error.description.dropFirst() + ".")
        }
    }

    // MARK: The operator record

    static func actionsTable(_ rows: [OperatorAction]) -> String {
        HTML.table(
            ["#", "When", "Who", "Role", "Channel", "Action", "Target", "Detail", "From", "Request"],
            rows.map {
                [
                    String($0.seq), HTML.time($0.at), HTML.escape($0.actor.name), HTML.escape($0.actor.role),
                    HTML.escape($0.actor.channel.rawValue), HTML.escape($0.action), HTML.escape($0.target), HTML.escape($0.detail),
                    HTML.escape($0.actor.sourceAddress), HTML.escape($0.actor.requestID)
                ]
            }, id: "actions")
    }

    func recordPage(_ request: ConsoleRequest) async throws -> Response {
        let filter = try recordFilter(request)
        let rows = try await record.list(filter, limit: 100)
        var query = [("operator", filter.operator), ("action", filter.action)].compactMap { name, value in
            value.map { "\(name)=\(HTML.urlComponent($0))" }
        }
        query += [("since", filter.since), ("until", filter.until)].compactMap { name, value in
            value.map { "\(name)=\(HTML.urlComponent($0.rfc3339))" }
        }
        var body = """
            <form method=get action="/console/operators/record" id=record-filter>
            <label>Operator <input name=operator value="\(HTML.escape(filter.operator ?? ""))"></label>
            <label>Action <input name=action value="\(HTML.escape(filter.action ?? ""))" placeholder="invoice.void"></label>
            <label>Since <input name=since value="\(HTML.escape(filter.since?.rfc3339 ?? ""))" placeholder="2026-01-01T00:00:00Z"></label>
            <label>Until <input name=until value="\(HTML.escape(filter.until?.rfc3339 ?? ""))"></label>
            <button type=submit>Filter</button></form>
            """
        if request.may(Needs.recordDownloads) {
            body += "<p>" + HTML.link("/console/operators/record/download", "Download the whole record (JSON lines)") + "</p>"
        }
        body += Self.actionsTable(rows)
        if rows.count == 100, let last = rows.last {
            let next = (query + ["before=\(last.seq)"]).joined(separator: "&")
            body += "<p>" + HTML.link("/console/operators/record?" + next, "Older") + "</p>"
        }
        return request.page("Operator record", body)
    }

    func recordFilter(_ request: ConsoleRequest) throws -> OperatorActionFilter {
        func instant(_ name: String) throws -> Instant? {
            guard let text = request.query(name) else { return nil }
            guard let value = Instant(rfc3339: text) else {
                throw ConsoleError(.badRequest, "`\(name)` is an RFC 3339 time in UTC, e.g. 2026-03-01T00:00:00Z.")
            }
            return value
        }
        let before = try request.integer("before", default: 0)
        return OperatorActionFilter(
            operator: request.query("operator"), action: request.query("action"), since: try instant("since"), until: try instant("until"),
            before: before > 0 ? before : nil)
    }

    /// The whole record, oldest first, one JSON object per line, as `GET /v1/admin/operator-record/export` gives it.
    func recordDownload(_ request: ConsoleRequest) async throws -> Response {
        let record = record
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/x-ndjson; charset=utf-8", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"operator-record.jsonl\""
            ],
            body: ResponseBody { writer in
                try await record.exportLines { try await writer.write(ByteBuffer(string: $0)) }
                try await writer.finish(nil)
            })
    }
}
