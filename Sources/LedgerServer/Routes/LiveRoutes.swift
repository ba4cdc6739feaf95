import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import LedgerStore
import LedgerTenancy
import NIOCore
import ServiceLifecycle

/// `GET /v1/users/{user_id}/live`: the user's products status and entitlements, then every change of them, as a
/// WebSocket (text messages) or as Server-Sent Events (`Accept: text/event-stream`). The credentials are the reads'
/// (`UserAuthentication`): a public key with the user's signed `uid` cookie reaches only that user.
struct LiveRoutes {
    let hub: LiveHub

    static let lastEventID = HTTPField.Name("Last-Event-ID")!

    func register(on routes: RouteTable, auth: Authenticator) {
        let hub = hub
        let live = routes.group("/v1/users/{user_id}/live", UserAuthentication(auth: auth, timeout: routes.timeout))
        live.on(.get, "/v1/users/{user_id}/live") { request, context in
            let (caller, user) = try context.actor()
            // A cursor (the last one received) is checked, and answered with a fresh snapshot, which holds every change
            // since it.
            if let cursor = try request.headers[Self.lastEventID] ?? request.query("cursor"), LiveHub.checkpoint(cursor: cursor) == nil {
                throw APIError.badRequest("the cursor must be one this stream sent (`<transaction>-<position>`), as `Last-Event-ID` or `?cursor=`")
            }
            let (app, key) = (caller.app.id, caller.key.id)
            let pseudonym = try await hub.pseudonym(app: app, user: user)
            if request.headers[.upgrade]?.lowercased() == "websocket" {
                try hub.checkRoom(key: key)
                return try await WebSocketUpgradeMiddleware<LedgerRequestContext>(onUpgrade: { inbound, outbound, _ in
                    guard let subscription = try? hub.open(app: app, user: user, pseudonym: pseudonym, key: key) else { return }
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        // The client's messages are not used; reading them notices a close.
                        group.addTask { for try await _ in inbound {} }
                        group.addTask {
                            for await message in subscription.messages { try await outbound.write(.text(Self.text(message))) }
                        }
                        try await group.next()
                        group.cancelAll()
                    }
                }).handle(request, context: context) { _, _ in Response(status: .ok) }
            }
            guard request.headers[.accept]?.contains("text/event-stream") == true else {
                throw APIError(
                    .notAcceptable, "not_acceptable",
                    "open the stream as a WebSocket (`Upgrade: websocket`) or as Server-Sent Events (`Accept: text/event-stream`)")
            }
            let subscription = try hub.open(app: app, user: user, pseudonym: pseudonym, key: key)
            var headers: HTTPFields = [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"]
            headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    // Ended by the client going away (a write fails), by the hub, or by the server's graceful shutdown.
                    try await withGracefulShutdownHandler {
                        for await message in subscription.messages { try await writer.write(ByteBuffer(string: Self.event(message))) }
                    } onGracefulShutdown: {
                        subscription.end()
                    }
                    try await writer.finish(nil)
                })
        }
    }

    /// A WebSocket text message.
    static func text(_ message: LiveMessage) -> String {
        switch message {
        case .state(let type, let cursor, let json): #"{"cursor":"\#(cursor)","state":\#(json),"type":"\#(type)"}"#
        case .heartbeat: #"{"type":"heartbeat"}"#
        }
    }

    /// A Server-Sent Event (a heartbeat is a comment).
    static func event(_ message: LiveMessage) -> String {
        switch message {
        case .state(let type, let cursor, let json): "id: \(cursor)\nevent: \(type)\ndata: \(json)\n\n"
        case .heartbeat: ": heartbeat\n\n"
        }
    }
}
