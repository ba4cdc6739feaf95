import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LedgerBilling
import LedgerDomain
import LedgerOperators
import LedgerRecording
import LedgerStore
import LedgerTenancy
import LedgerWebhooks
import Logging
import NIOCore
import UTCTime

/// A refusal answered as an HTML page with a 4xx status and a message that says what to do.
struct ConsoleError: Error {
    var status: HTTPResponse.Status
    var message: String
    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// One console request: its session (if any), path parameters, query and (for POST) form fields, all decoded and
/// checked (valid UTF-8 percent-encoding, no NUL, bounded length).
struct ConsoleRequest: Sendable {
    let request: Request
    let parameters: [String: String]
    let query: [String: String]
    var form: [String: String] = [:]
    let token: String?
    let session: ConsoleSession?
    /// The client's address, as the connection gives it (no forwarding header is trusted).
    var address: String?
    /// The request id (`RequestIDMiddleware`), for the operator record.
    var requestID: String?

    init(request: Request, parameters: [String: String], console: Console) async throws {
        self.request = request
        var decoded: [String: String] = [:]
        for (name, raw) in parameters {
            guard let value = raw.removingPercentEncoding, !value.unicodeScalars.contains("\u{0}"), value.utf8.count <= 1000 else {
                throw ConsoleError(.badRequest, "The path's `\(name)` is not valid (percent-encoded UTF-8, at most 1000 bytes).")
            }
            decoded[name] = value
        }
        self.parameters = decoded
        self.query = try Form.parse(request.uri.query ?? "", what: "query")
        let token = request.cookies[Console.sessionCookie]?.value
        self.token = token
        var session: ConsoleSession? = nil
        if let token, !token.isEmpty {
            let now = console.clock.now()
            session = try await console.sessions.find(token: token, now: now, idleSince: now.adding(.seconds(-console.settings.idleSeconds)))
        }
        self.session = session
    }

    var isSecure: Bool {
        request.uri.scheme == .https || request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }

    func actor() throws -> String {
        guard let session else { throw ConsoleError(.forbidden, "Sign in first.") }
        return session.actor
    }

    var csrf: String { session?.csrf ?? "" }

    /// A form that writes, shown only when the session's role may use it (the server checks again on the POST).
    func form(action: String, roles: Set<OperatorRole>?, fields: String, button: String, confirm: Bool = false) -> String {
        guard let session, roles.map(session.may) ?? true else { return "" }
        return HTML.form(action: action, csrf: session.csrf, fields: fields, button: button, confirm: confirm)
    }

    /// Whether the session's role may do what needs `roles` (a page leaves out what it may not).
    func may(_ roles: Set<OperatorRole>) -> Bool { session?.may(roles) ?? false }

    /// The signed-in operator as the operator record names them, with this request's address and id.
    func operatorActor() throws -> OperatorActor {
        guard let session else { throw ConsoleError(.forbidden, "Sign in first.") }
        return acting(operatorID: session.operatorID ?? "", name: session.actor, role: session.isBreakGlass ? "break-glass" : session.role.rawValue)
    }

    /// Someone acting through this request (a sign-in, before there is a session).
    func acting(operatorID: String, name: String, role: String) -> OperatorActor {
        OperatorActor(operatorID: operatorID, name: name, role: role, channel: .console, sourceAddress: address, requestID: requestID)
    }

    func path(_ name: String) throws -> String {
        guard let value = parameters[name], !value.isEmpty else { throw ConsoleError(.badRequest, "The path needs `\(name)`.") }
        return value
    }

    /// A query parameter, nil when absent or empty.
    func query(_ name: String) -> String? { query[name].flatMap { $0.isEmpty ? nil : $0 } }

    func field(_ name: String) throws -> String {
        guard let value = form[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
            throw ConsoleError(.badRequest, "The form needs `\(name)`.")
        }
        return value
    }

    func month(_ text: String?) throws -> CalendarMonth? {
        guard let text else { return nil }
        guard let month = CalendarMonth(parsing: text) else { throw ConsoleError(.badRequest, "A month is written YYYY-MM, e.g. 2026-03.") }
        return month
    }

    func integer(_ name: String, default value: Int64) throws -> Int64 {
        guard let text = query(name) else { return value }
        guard let number = Int64(text), number >= 0 else { throw ConsoleError(.badRequest, "`\(name)` must be a whole number ≥ 0.") }
        return number
    }

    /// The page, framed, for the signed-in user.
    func page(_ title: String, _ body: String) -> Response {
        Console.html(.ok, Layout.page(title: title, actor: session?.actor, csrf: session?.csrf, body: body))
    }
}

/// `application/x-www-form-urlencoded` (forms and query strings).
enum Form {
    static let limit = 64 * 1024

    static func read(_ request: Request) async throws -> [String: String] {
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: limit) } catch {
            throw ConsoleError(.contentTooLarge, "A console form is at most \(limit) bytes.")
        }
        return try parse(String(buffer: buffer), what: "form")
    }

    static func parse(_ text: String, what: String) throws -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) throws -> String {
                guard let value = part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
                    !value.unicodeScalars.contains("\u{0}")
                else { throw ConsoleError(.badRequest, "The \(what) is not valid percent-encoded UTF-8 (or holds NUL).") }
                return value
            }
            let name = try decode(parts[0])
            if fields[name] == nil { fields[name] = parts.count > 1 ? try decode(parts[1]) : "" }
        }
        return fields
    }
}
