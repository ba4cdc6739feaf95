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

/// The console under `/console`: support (customers), finance (invoices, charts) and operations (tenancy, keys,
/// webhooks, projection lag, digests), rendered on the server. `LedgerApplication` mounts it on the service's router.
///
/// Sign-in takes the admin token (`LEDGER_ADMIN_TOKEN`) and a name; the session is an HttpOnly, SameSite=Strict
/// cookie (Secure when the request came over TLS or `X-Forwarded-Proto: https`) that expires. Every form that writes
/// is a POST carrying the session's CSRF token, and every write is appended to the operator record
/// (`OperatorActionLog`) with the operator, the role used, the source address and the request id.
package struct Console: Sendable {
    package struct Settings: Sendable {
        /// `LEDGER_ADMIN_TOKEN`; nil or empty: the console refuses every sign-in.
        package var adminToken: String?
        /// How long a session lasts from sign-in.
        package var sessionLifetimeSeconds: Int64
        /// How long a session lasts without a request.
        package var idleSeconds: Int64

        package init(adminToken: String?, sessionLifetimeSeconds: Int64 = 8 * 3600, idleSeconds: Int64 = 30 * 60) {
            self.adminToken = adminToken
            self.sessionLifetimeSeconds = sessionLifetimeSeconds
            self.idleSeconds = idleSeconds
        }
    }

    let settings: Settings
    let adminTokenDigest: [UInt8]?
    let clock: LedgerClock
    let logger: Logger
    let sessions: ConsoleSessionStore
    let record: OperatorActionLog
    let tokens: OperatorTokenStore
    let throttle: SignInThrottleStore
    let recorder: LedgerRecorder
    let trends: MonthlyTrendQueries
    let logStatus: LogStatusQueries
    let users: UserQueries
    let revenue: RevenueQueries
    let tenancy: TenancyStore
    let invoices: InvoiceStore
    let webhooks: WebhookStore
    /// Operator accounts; nil without a master key (then only the break-glass admin token signs in).
    let operators: OperatorStore?
    /// Called after a write to tenancy (a key created or revoked), so the API's caches forget at once.
    let tenancyChanged: @Sendable () -> Void

    /// What the console reads and writes through: the API's own query types and stores (the read models', tenancy's,
    /// invoices', webhooks'), the read models' monthly trends and the log's status, and the operators' sessions, so no
    /// SQL lives here.
    package struct Stores: Sendable {
        package var sessions: ConsoleSessionStore
        package var record: OperatorActionLog
        package var tokens: OperatorTokenStore
        package var recorder: LedgerRecorder
        package var trends: MonthlyTrendQueries
        package var logStatus: LogStatusQueries
        package var users: UserQueries
        package var revenue: RevenueQueries
        package var tenancy: TenancyStore
        package var invoices: InvoiceStore
        package var webhooks: WebhookStore
        package var operators: OperatorStore?

        package init(
            sessions: ConsoleSessionStore, record: OperatorActionLog, tokens: OperatorTokenStore, recorder: LedgerRecorder, users: UserQueries,
            trends: MonthlyTrendQueries,
            logStatus: LogStatusQueries,
            revenue: RevenueQueries, tenancy: TenancyStore, invoices: InvoiceStore, webhooks: WebhookStore,
            operators: OperatorStore? = nil
        ) {
            (self.sessions, self.record, self.tokens, self.recorder, self.users) = (sessions, record, tokens, recorder, users)
            self.trends = trends
            (self.logStatus, self.revenue) = (logStatus, revenue)
            (self.tenancy, self.invoices, self.webhooks, self.operators) = (tenancy, invoices, webhooks, operators)
        }
    }

    package init(
        stores: Stores, settings: Settings, clock: LedgerClock, logger: Logger,
        tenancyChanged: @escaping @Sendable () -> Void = {}
    ) {
        self.settings = settings
        self.adminTokenDigest = settings.adminToken.flatMap { $0.isEmpty ? nil : Array(SHA256.hash(data: Array($0.utf8))) }
        self.clock = clock
        self.logger = logger
        self.sessions = stores.sessions
        self.record = stores.record
        self.tokens = stores.tokens
        self.recorder = stores.recorder
        self.throttle = SignInThrottleStore(pool: stores.record.pool)
        self.trends = stores.trends
        self.logStatus = stores.logStatus
        self.users = stores.users
        self.revenue = stores.revenue
        self.tenancy = stores.tenancy
        self.invoices = stores.invoices
        self.webhooks = stores.webhooks
        self.operators = stores.operators
        self.tenancyChanged = tenancyChanged
    }

    static let sessionCookie = "ledger_console"
    static let signInCookie = "ledger_console_signin"

    /// Registers every console route on `router`.
    package func register<Context: RemoteAddressRequestContext>(on router: Router<Context>) {
        let console = self
        /// `roles`: who may use the page (nil: every signed-in operator); the server refuses the others with 403.
        func page(
            _ method: HTTPRequest.Method, _ path: String, signedIn: Bool = true, roles: Set<OperatorRole>? = nil,
            _ handler: @escaping @Sendable (ConsoleRequest) async throws -> Response
        ) {
            let names = path.split(separator: "/").filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) }
            router.on(RouterPath(path), method: method) { request, context -> Response in
                var parameters: [String: String] = [:]
                for name in names {
                    parameters[name] = context.parameters.get(name).map { String($0) }
                }
                let requestID: String? =
                    if case .string(let id) = context.logger[metadataKey: "request_id"] { id } else { nil }
                return await console.respond(
                    request, parameters: parameters, origin: (context.remoteAddress?.ipAddress, requestID), signedIn: signedIn,
                    roles: roles, handler)
            }
        }
        page(.get, "/console", signedIn: false) { request in
            Self.redirect(request.session == nil ? "/console/sign-in" : "/console/customers")
        }
        page(.get, "/console/sign-in", signedIn: false) { try await console.signInPage($0) }
        page(.post, "/console/sign-in", signedIn: false) { try await console.signIn($0) }
        page(.post, "/console/sign-out") { try await console.signOut($0) }
        page(.post, "/console/sign-out-everywhere") { try await console.signOutEverywhere($0) }
        page(.get, "/console/customers") { try await console.customersPage($0) }
        page(.get, "/console/customers/:app/:user") { try await console.customerPage($0) }
        page(.get, "/console/customers/:app/:user/as-of/:position") { try await console.asOfPage($0) }
        page(.post, "/console/customers/:app/:user/purchases/:purchase/consume", roles: Needs.customerWrites) { try await console.consume($0) }
        page(.post, "/console/customers/:app/:user/grants", roles: Needs.customerWrites) { try await console.giveGrant($0) }
        page(.post, "/console/customers/:app/:user/grants/:grant/revoke", roles: Needs.customerWrites) { try await console.revokeGrant($0) }
        page(.get, "/console/finance") { try await console.financePage($0) }
        page(.post, "/console/finance/finalize", roles: Needs.invoiceWrites) { try await console.finalize($0) }
        page(.get, "/console/finance/invoices/:invoice") { try await console.invoicePage($0) }
        page(.get, "/console/finance/invoices/:invoice/download", roles: Needs.downloads) { try await console.download($0) }
        page(.post, "/console/finance/invoices/:invoice/void", roles: Needs.invoiceWrites) { try await console.void($0) }
        page(.get, "/console/operations") { try await console.operationsPage($0) }
        page(.get, "/console/operations/apps/:app") { try await console.appPage($0) }
        page(.post, "/console/operations/apps/:app/keys", roles: Needs.tenancyWrites) { try await console.createKey($0) }
        page(.post, "/console/operations/apps/:app/keys/:key/revoke", roles: Needs.tenancyWrites) { try await console.revokeKey($0) }
        page(.get, "/console/operations/apps/:app/webhooks/:endpoint") { try await console.deliveriesPage($0) }
        page(.post, "/console/operations/apps/:app/webhooks/:endpoint/deliveries/:delivery/redeliver", roles: Needs.redelivery) {
            try await console.redeliver($0)
        }
        page(.get, "/console/operators") { try await console.operatorsPage($0) }
        page(.post, "/console/operators", roles: Needs.operatorWrites) { try await console.addOperator($0) }
        page(.post, "/console/operators/:name/disable", roles: Needs.operatorWrites) { try await console.disableOperator($0) }
        page(.post, "/console/operators/:name/role", roles: Needs.operatorWrites) { try await console.setOperatorRole($0) }
        page(.post, "/console/operators/:name/password", roles: Needs.operatorWrites) { try await console.resetOperatorPassword($0) }
        page(.post, "/console/operators/:name/unlock", roles: Needs.operatorWrites) { try await console.unlockOperator($0) }
        page(.post, "/console/operators/me/tokens") { try await console.createToken($0) }
        page(.post, "/console/operators/me/tokens/:token/revoke") { try await console.revokeToken($0) }
        page(.get, "/console/operators/record") { try await console.recordPage($0) }
        page(.get, "/console/operators/record/download", roles: Needs.recordDownloads) { try await console.recordDownload($0) }
    }

    /// Records a write that is already committed: a failure to record it is logged, not answered as an error page
    /// (the operator would do again what was done). Sign-ins and refusals, recorded before anything changes, use
    /// `record.append` and fail closed.
    func recordDone(_ action: String, target: String, detail: String = "", by actor: OperatorActor) async {
        do { try await record.append(action, target: target, detail: detail, by: actor, at: clock.now()) } catch {
            logger.error("the operator record did not take a console write", metadata: ["action": "\(action)", "error": "\(error)"])
        }
    }

    /// Who may do what in the console: the same table registers the routes (the server refuses others with 403) and
    /// decides which forms a page shows (`ConsoleRequest.form`). Every signed-in operator reads every page.
    enum Needs {
        static let customerWrites: Set<OperatorRole> = [.support]
        static let invoiceWrites: Set<OperatorRole> = [.finance]
        static let downloads: Set<OperatorRole> = [.finance, .auditor]
        static let tenancyWrites: Set<OperatorRole> = [.admin]
        static let redelivery: Set<OperatorRole> = [.support]
        static let operatorWrites: Set<OperatorRole> = [.admin]
        static let recordDownloads: Set<OperatorRole> = [.auditor, .admin]
    }

    /// Runs a page: reads the session (refusing a page that needs one), checks the CSRF token of every POST, and
    /// turns refusals into HTML answers with a 4xx status. Only a fault of the service itself answers 500.
    func respond(
        _ request: Request, parameters: [String: String], origin: (address: String?, requestID: String?), signedIn: Bool,
        roles: Set<OperatorRole>?, _ handler: @Sendable (ConsoleRequest) async throws -> Response
    ) async -> Response {
        // The server's time for the page, in `Server-Timing` (the benchmark's console figure reads it).
        let clock = ContinuousClock()
        let start = clock.now
        var response = await answer(request, parameters: parameters, origin: origin, signedIn: signedIn, roles: roles, handler)
        let elapsed = start.duration(to: clock.now)
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        response.headers[HTTPField.Name("Server-Timing")!] = "app;dur=" + String(format: "%.3f", milliseconds)
        return response
    }

    func answer(
        _ request: Request, parameters: [String: String], origin: (address: String?, requestID: String?), signedIn: Bool,
        roles: Set<OperatorRole>?, _ handler: @Sendable (ConsoleRequest) async throws -> Response
    ) async -> Response {
        do {
            var console = try await ConsoleRequest(request: request, parameters: parameters, console: self)
            (console.address, console.requestID) = origin
            if request.method == .post { console.form = try await Form.read(request) }
            if signedIn {
                guard let session = console.session else {
                    if request.method == .get { return Self.redirect("/console/sign-in") }
                    throw ConsoleError(.forbidden, "You are not signed in, or your session has expired. Sign in again.")
                }
                if request.method == .post {
                    let presented = console.form["csrf"] ?? ""
                    guard Self.constantTimeEqual(presented, session.csrf) else {
                        throw ConsoleError(.forbidden, "The form's CSRF token is missing or not this session's. Reload the page and try again.")
                    }
                }
                if let roles, !session.may(roles) {
                    let needed = OperatorRole.listed(roles)
                    throw ConsoleError(.forbidden, "This needs the \(needed) role; you are signed in with the \(session.role.rawValue) role.")
                }
            }
            return try await handler(console)
        } catch let error as ConsoleError {
            return Self.errorPage(error)
        } catch let error as InvoiceError {
            let status: HTTPResponse.Status =
                switch error {
                case .unknownAccount, .unknownInvoice, .unknownPlan: .notFound
                default: .conflict
                }
            return Self.errorPage(ConsoleError(status, error.description))
        } catch let error as WebhookStoreError {
            return Self.errorPage(ConsoleError(.notFound, "\(error)"))
        } catch {
            logger.error("console page failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return Self.errorPage(ConsoleError(.internalServerError, "The page could not be made; the service logged why."))
        }
    }

    // MARK: Responses

    static func html(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8",
            .cacheControl: "no-store",
            .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'"
        ]
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    static func errorPage(_ error: ConsoleError) -> Response {
        let body = "<p class=error id=error>\(HTML.escape(error.message))</p><p><a href=\"/console\">Back to the console</a></p>"
        return html(error.status, Layout.page(title: "\(error.status.code) \(error.status.reasonPhrase)", actor: nil, csrf: nil, body: body))
    }

    static func cookie(_ name: String, _ value: String, path: String, maxAge: Int64, secure: Bool) -> String {
        "\(name)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count, !x.isEmpty else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
