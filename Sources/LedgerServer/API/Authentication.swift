import Hummingbird

// Authentication as middleware on route groups: each group of routes states once who may call it, and its
// handlers find the accepted caller in `LedgerRequestContext`. A failure is thrown as an `APIError` (401 / 403),
// which `ErrorMiddleware` answers. The key lookup runs under the request timeout like the handler (a stuck
// database answers 504, see `withRequestTimeout`).

/// `/v1/admin/…`: the admin token (operators and finance).
struct AdminAuthentication: RouterMiddleware {
    let auth: Authenticator

    func handle(
        _ request: Request, context: LedgerRequestContext,
        next: (Request, LedgerRequestContext) async throws -> Response
    ) async throws -> Response {
        try auth.requireAdmin(request)
        return try await next(request, context)
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
        let (auth, secretOnly) = (auth, secretOnly)
        let app = appFromPath ? try context.path("app_id") : nil
        context.appCaller = try await withRequestTimeout(timeout) {
            if let app { return try await auth.requireSecretKey(request, forApp: app) }
            return try await auth.requireAppKey(request, secretOnly: secretOnly)
        }
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
        let (auth, secretOnly) = (auth, secretOnly)
        let caller = try await withRequestTimeout(timeout) { try await auth.requireAppKey(request, secretOnly: secretOnly) }
        let claimed = try Check.text(try context.path("user_id"), "user_id", max: 256)
        context.appCaller = caller
        context.user = try auth.user(request, caller: caller, claimed: claimed)
        return try await next(request, context)
    }
}
