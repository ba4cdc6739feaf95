import Hummingbird
import LedgerDomain
import LedgerOperators
import LedgerPrivacy
import Logging

// Authentication as middleware on route groups: each group of routes states once who may call it, and its
// handlers find the accepted caller in `LedgerRequestContext`. A failure is thrown as an `APIError` (401 / 403),
// which `ErrorMiddleware` answers. The key lookup runs under the request timeout like the handler (a stuck
// database answers 504, see `withRequestTimeout`).

/// Who called the admin API: an operator, through a token carrying a role, or the break-glass admin token.
package enum AdminCaller: Sendable, Equatable {
    case `operator`(OperatorCaller)
    case breakGlass

    /// Whether the caller may do what needs one of `roles`.
    func may(_ roles: Set<OperatorRole>) -> Bool {
        switch self {
        case .operator(let caller): roles.contains(caller.role)
        case .breakGlass: true
        }
    }
}

/// `/v1/admin/…`: an operator's token or the break-glass admin token. Every role reads (GET); a write needs one of
/// the roles `writers` names for it, else 403 saying which, before the handler runs (so nothing is written).
///
/// The operator record gets every use of the break-glass token (`break_glass`, reads too) and every write that
/// succeeded (`api.write`: the route, the concrete path, the status), with the operator, the role used, the peer's
/// address and the request id. A refused or failed write changed nothing and is only logged.
struct AdminAuthentication: RouterMiddleware {
    let auth: Authenticator
    /// The roles that may write through this group, by request (most groups: one set for all their routes).
    let writers: @Sendable (Request) -> Set<OperatorRole>

    init(auth: Authenticator, writers: Set<OperatorRole>) {
        self.auth = auth
        self.writers = { _ in writers }
    }

    init(auth: Authenticator, writers: @escaping @Sendable (Request) -> Set<OperatorRole>) {
        self.auth = auth
        self.writers = writers
    }

    /// The caller as the operator record names them, with the request's address and id.
    static func actor(_ caller: AdminCaller, context: LedgerRequestContext) -> OperatorActor {
        let (id, name, role) =
            switch caller {
            case .operator(let o): (o.operatorID, o.name, o.role.rawValue)
            case .breakGlass: ("", "LEDGER_ADMIN_TOKEN", "break-glass")
            }
        return OperatorActor(
            operatorID: id, name: name, role: role, channel: .api, sourceAddress: context.remoteAddress?.ipAddress,
            requestID: context.requestID)
    }

    func handle(
        _ request: Request, context: LedgerRequestContext,
        next: (Request, LedgerRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        let caller = try await auth.requireAdmin(request, address: context.remoteAddress?.ipAddress)
        let actor = Self.actor(caller, context: context)
        let template = RouteTable.documentedPath(context.endpointPath ?? request.uri.path)
        let route = "\(request.method.rawValue) " + template
        let path = try await recordedPath(request, template: template, context: context)
        if caller == .breakGlass {
            try await auth.record.append("break_glass", target: route, detail: path, by: actor, at: auth.clock.now())
        }
        let isWrite = request.method != .get && request.method != .head
        if isWrite {
            let roles = writers(request)
            guard caller.may(roles) else {
                let needed = OperatorRole.listed(roles)
                let has = if case .operator(let o) = caller { o.role.rawValue } else { "" }
                throw APIError.forbidden("this needs the \(needed) role; the token carries the \(has) role")
            }
        }
        context.adminCaller = caller
        let response = try await next(request, context)
        if isWrite && (200..<400).contains(response.status.code) {
            // The write is committed: a failure to record it must not turn its answer into an error (a client would
            // retry a write that happened). It is logged loudly instead.
            do {
                try await auth.record.append(
                    "api.write", target: route, detail: "\(path) → \(response.status.code)", by: actor, at: auth.clock.now())
            } catch {
                context.logger.error("the operator record did not take a write", metadata: ["route": "\(route)", "error": "\(error)"])
            }
        }
        return response
    }
}

extension AdminAuthentication {
    /// The request's path as the operator record keeps it: an app user named in it is named by pseudonym
    /// (`user:usr_…`, looked up before the handler runs, so an erasure's own record names whom it erased), since the
    /// record, like the log, must not keep an id that erasure would have to remove.
    func recordedPath(_ request: Request, template: String, context: LedgerRequestContext) async throws -> String {
        let slots = template.split(separator: "/")
        guard let slot = slots.firstIndex(of: "{user_id}"), let appID = try? context.path("app_id"), let user = try? context.path("user_id")
        else { return request.uri.path }
        var parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard slot < parts.count else { return request.uri.path }
        parts[slot] = "user:" + ((try await auth.identities.find(app: appID, user: user)) ?? "unknown")
        return "/" + parts.joined(separator: "/")
    }
}

/// A live app key, public or secret (`secretOnly` refuses public keys); with `appFromPath`, only a secret key of the
/// app named by the path's `app_id`.
struct AppKeyAuthentication: RouterMiddleware {
    let auth: Authenticator
    let timeout: Duration
    var secretOnly = false
    var appFromPath = false

    func handle(
        _ request: Request, context: LedgerRequestContext,
        next: (Request, LedgerRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        let app = appFromPath ? try context.path("app_id") : nil
        let caller = try await auth.appKey(request, secretOnly: secretOnly || app != nil, timeout: timeout)
        context.appCaller = if let app { try Authenticator.owned(caller, by: app) } else { caller }
        return try await next(request, context)
    }
}

/// `/v1/users/{user_id}/…`: an app key and the user it may act for: any user of its app for a secret key, only the
/// user of its signed `uid` cookie for a public key.
struct UserAuthentication: RouterMiddleware {
    let auth: Authenticator
    let timeout: Duration
    var secretOnly = false

    func handle(
        _ request: Request, context: LedgerRequestContext,
        next: (Request, LedgerRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        let caller = try await auth.appKey(request, secretOnly: secretOnly, timeout: timeout)
        let claimed = try Check.text(try context.path("user_id"), "user_id", max: 256)
        context.appCaller = caller
        context.user = try auth.user(request, caller: caller, claimed: claimed)
        return try await next(request, context)
    }
}
