import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// The request context of every route: the framework's own, plus who the route group's authentication middleware
/// accepted (see `Authentication.swift`). Handlers read the caller from here and never authenticate themselves.
package struct LedgerRequestContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The connection's peer (the console throttles failed sign-ins per address); nil in in-process tests.
    package let remoteAddress: SocketAddress?
    /// Where a WebSocket upgrade (`GET /v1/users/{id}/live`) leaves its handler.
    package let webSocket = WebSocketHandlerReference<LedgerRequestContext>()
    /// The app key that `AppKeyAuthentication` or `UserAuthentication` accepted.
    var appCaller: AppCaller?
    /// The user the app key may act for (`UserAuthentication`): the path's `user_id`, which a public key's signed
    /// `uid` cookie must name.
    var user: String?
    /// Who called the admin API (`AdminAuthentication`).
    var adminCaller: AdminCaller?

    package init(source: Source) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The authenticated app key. A route registered outside an app-key group that asks for it is a programming
    /// error: a logged 500, never an unauthenticated answer.
    func caller() throws -> AppCaller {
        guard let appCaller else { throw MissingAuthentication() }
        return appCaller
    }

    /// The authenticated app key and the user it acts for.
    func actor() throws -> (caller: AppCaller, user: String) {
        guard let appCaller, let user else { throw MissingAuthentication() }
        return (appCaller, user)
    }

    /// The request id (see `RequestIDMiddleware`), for event metadata.
    var requestID: String? {
        guard let value = logger[metadataKey: "request_id"], case .string(let id) = value else { return nil }
        return id
    }
}

/// A handler that needs a caller was registered without the middleware that provides one.
struct MissingAuthentication: Error, CustomStringConvertible {
    var description: String { "the route was registered without its authentication middleware" }
}
