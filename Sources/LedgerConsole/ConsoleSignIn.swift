import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LedgerBilling
import LedgerDomain
import LedgerOperators
import LedgerStore
import LedgerTenancy
import LedgerWebhooks
import Logging
import NIOCore
import UTCTime

/// Signing in and out of the console: operators with password and one-time code, or the break-glass admin token.
extension Console {
    func signInPage(_ request: ConsoleRequest) async throws -> Response {
        let nonce = ConsoleSessionStore.token()
        let body = """
            <form method=post action="/console/sign-in" id=operator-sign-in>\(HTML.hidden("csrf", nonce))
            <p><label>Operator<br><input name=name id=name required maxlength=64 autocomplete=username></label></p>
            <p><label>Password<br><input name=password id=password type=password required autocomplete=current-password></label></p>
            <p><label>One-time password (from your authenticator app)<br>\
            <input name=code id=code inputmode=numeric maxlength=6 autocomplete=one-time-code></label></p>
            <p><button type=submit>Sign in</button></p></form>
            <h2>Break-glass</h2>
            <p>With the server's LEDGER_ADMIN_TOKEN, for when no operator can sign in. Every use is recorded as such.</p>
            <form method=post action="/console/sign-in" id=sign-in>\(HTML.hidden("csrf", nonce))
            <p><label>Your name (recorded with what you change)<br><input name=actor id=actor required maxlength=100></label></p>
            <p><label>Admin token (LEDGER_ADMIN_TOKEN)<br><input name=token id=token type=password required></label></p>
            <p><button type=submit>Sign in with the admin token</button></p></form>
            """
        var response = Self.html(.ok, Layout.page(title: "Sign in", actor: nil, csrf: nil, body: body))
        response.headers.append(
            HTTPField(
                name: .setCookie,
                value: Self.cookie(
                    Self.signInCookie, nonce, path: "/console/sign-in",
                    maxAge: 3600, secure: request.isSecure)))
        return response
    }

    func signIn(_ request: ConsoleRequest) async throws -> Response {
        // The sign-in form carries the nonce of its own cookie (double submit): another site cannot post it.
        guard let nonce = request.request.cookies[Self.signInCookie]?.value,
            Self.constantTimeEqual(request.form["csrf"] ?? "", nonce)
        else { throw ConsoleError(.forbidden, "The sign-in form is stale or did not come from this console. Open the sign-in page again.") }
        if let name = request.form["name"] { return try await operatorSignIn(request, name: name) }
        guard let digest = adminTokenDigest else {
            throw ConsoleError(.forbidden, "The console is disabled: start `ledger serve` with LEDGER_ADMIN_TOKEN set.")
        }
        let actor = (request.form["actor"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !actor.isEmpty, actor.count <= 100 else { throw ConsoleError(.badRequest, "Give your name (1 to 100 characters).") }
        let now = clock.now()
        // Wrong tokens slow down, then lock, the address they come from (never the token: that would shut it for all).
        let subjects = request.address.map { [SignInThrottleStore.address($0)] } ?? []
        do { try await throttle.check(subjects, at: now) } catch OperatorError.signInThrottled(let until) {
            throw ConsoleError(.tooManyRequests, "Too many failed sign-ins. Try again after \(until.rfc3339).")
        }
        let candidate = Array(SHA256.hash(data: Array((request.form["token"] ?? "").utf8)))
        guard zip(candidate, digest).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 else {
            try await throttle.failed(subjects, at: now)
            try await record.append(
                "sign_in_refused", target: "console", detail: "break-glass", by: request.acting(operatorID: "", name: "(not signed in)", role: ""),
                at: now)
            throw ConsoleError(.unauthorized, "The admin token is not valid.")
        }
        let (token, _) = try await sessions.start(actor: actor, now: now, lifetimeSeconds: settings.sessionLifetimeSeconds)
        try await record.append(
            "sign_in", target: "console", detail: "break-glass: LEDGER_ADMIN_TOKEN",
            by: request.acting(operatorID: "", name: actor, role: "break-glass"), at: now)
        return signedIn(request, token: token)
    }

    /// An operator's sign-in: name, password and (if it has one) a one-time code, checked by `OperatorStore.signIn`.
    /// A refusal says the same whatever was wrong.
    func operatorSignIn(_ request: ConsoleRequest, name: String) async throws -> Response {
        guard let operators else {
            throw ConsoleError(.forbidden, "Operator sign-in needs the server's master key (LEDGER_MASTER_KEY_FILE); use the admin token.")
        }
        let now = clock.now()
        let code = request.form["code"].flatMap { $0.isEmpty ? nil : $0 }
        let signedIn: OperatorRecord
        do {
            signedIn = try await operators.signIn(
                name: name, password: request.form["password"] ?? "", oneTimePassword: code, from: request.address, at: now)
        } catch OperatorError.signInThrottled(let until) {
            throw ConsoleError(.tooManyRequests, "Too many failed sign-ins. Try again after \(until.rfc3339).")
        } catch OperatorError.signInRefused {
            try await record.append(
                "sign_in_refused", target: "console", detail: "as \(name.prefix(64))",
                by: request.acting(operatorID: "", name: "(not signed in)", role: ""), at: now)
            throw ConsoleError(
                .unauthorized,
                OperatorError.signInRefused.description.prefix(1).uppercased()
                    + OperatorError.signInRefused.description.dropFirst() + ".")
        }
        let (token, _) = try await sessions.start(
            actor: signedIn.name, operatorID: signedIn.id, role: signedIn.role, now: now, lifetimeSeconds: settings.sessionLifetimeSeconds)
        try await record.append(
            "sign_in", target: "console", by: request.acting(operatorID: signedIn.id, name: signedIn.name, role: signedIn.role.rawValue),
            at: now)
        return self.signedIn(request, token: token)
    }

    /// The answer to a sign-in: the session's cookie, the sign-in nonce's cleared, and on to the customers.
    func signedIn(_ request: ConsoleRequest, token: String) -> Response {
        var response = Self.redirect("/console/customers")
        response.headers.append(
            HTTPField(
                name: .setCookie,
                value: Self.cookie(
                    Self.sessionCookie, token, path: "/console", maxAge: settings.sessionLifetimeSeconds, secure: request.isSecure)))
        response.headers.append(
            HTTPField(
                name: .setCookie,
                value: Self.cookie(
                    Self.signInCookie, "", path: "/console/sign-in", maxAge: 0, secure: request.isSecure)))
        return response
    }

    /// Ends every session of the signed-in operator, on every device and instance (a break-glass session: this one).
    func signOutEverywhere(_ request: ConsoleRequest) async throws -> Response {
        let now = clock.now()
        if let session = request.session, let operatorID = session.operatorID {
            let ended = try await sessions.endAll(operatorID: operatorID)
            try await record.append("sign_out_everywhere", target: "console", detail: "\(ended) session(s)", by: try request.operatorActor(), at: now)
        } else if let token = request.token {
            try await sessions.end(token: token)
            try await record.append("sign_out", target: "console", by: try request.operatorActor(), at: now)
        }
        return Self.signedOut(request)
    }

    func signOut(_ request: ConsoleRequest) async throws -> Response {
        let actor = try request.operatorActor()
        if let token = request.token { try await sessions.end(token: token) }
        try await record.append("sign_out", target: "console", by: actor, at: clock.now())
        return Self.signedOut(request)
    }

    /// Back to the sign-in page, the session cookie cleared.
    static func signedOut(_ request: ConsoleRequest) -> Response {
        var response = Self.redirect("/console/sign-in")
        response.headers.append(
            HTTPField(
                name: .setCookie,
                value: Self.cookie(
                    Self.sessionCookie, "", path: "/console", maxAge: 0,
                    secure: request.isSecure)))
        return response
    }
}
