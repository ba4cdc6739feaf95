import Foundation
import HTTPServerChannels
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

extension LedgerApplication {
    /// The server of `ledger serve` and of the tests: HTTP/1.1 with the WebSocket upgrade of the live streams
    /// (routed by `router`, with its authentication), each connection guarded by `FirstRequestGuard`, and closed if the
    /// server drops it unserved at shutdown (`ClosingChildChannel`).
    package static func server(router: Router<LedgerRequestContext>) -> HTTPServerBuilder {
        let webSocketResponder = router.buildResponder()
        return HTTPServerBuilder { responder in
            ClosingChildChannel(
                FirstRequestGuard(
                    inner: HTTP1WebSocketUpgradeChannel(
                        responder: responder, webSocketResponder: webSocketResponder,
                        configuration: .init())))
        }
    }
}

/// Hummingbird's HTTP/1.1-with-WebSocket-upgrade connection, plus `MalformedFirstRequestAnswer` in its pipeline.
///
/// Why: each connection starts in the upgrade stage, where NIO's upgrade handler waits for the first request head.
/// A first request that does not parse (a raw non-ASCII byte or a control character in the target, a bad method or
/// header line) raised a parse error there that nothing handled: Hummingbird turns NIO's error handler off and
/// answers parse errors itself only once the upgrade stage is over. The upgrade never completed, so the connection
/// stayed open with no answer until the client gave up. Later requests on a connection are Hummingbird's: it answers
/// their parse errors with a 400 and closes.
struct FirstRequestGuard: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value
    let inner: HTTP1WebSocketUpgradeChannel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // Right after the request decoder: its errors reach this handler before the upgrade handler.
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(MalformedFirstRequestAnswer(), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Answers a connection's first request when it does not parse as HTTP/1.1: a 400 in the API's error shape
/// (`APIError`), then the connection closed. Once anything has been decoded it only passes everything on, unread
/// (after an upgrade the parts are WebSocket frames).
final class MalformedFirstRequestAnswer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var firstRequestDecoded = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        firstRequestDecoded = true
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !firstRequestDecoded, let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        firstRequestDecoded = true
        let body = Self.body(Self.message(for: parseError))
        let headers = HTTPHeaders([
            ("Content-Type", "application/json; charset=utf-8"), ("Content-Length", String(body.readableBytes)), ("Connection", "close"),
            (RequestIDMiddleware<LedgerRequestContext>.headerName.rawName, RequestID().description)
        ])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            // The upgrade stage ends as when a client half-closes (quietly: no error logged), and the connection closes.
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            context.close(promise: nil)
        }
    }

    static func message(for error: HTTPParserError) -> String {
        switch error {
        case .invalidURL, .invalidPath, .invalidQueryString, .invalidFragment, .invalidHost, .invalidPort:
            "the request target is not valid HTTP/1.1 (\(error)): send the path and query as printable ASCII and "
                + "percent-encode every other byte (é as %C3%A9, a space as %20)"
        default:
            "the request is not valid HTTP/1.1 (\(error)): check the request line (method, target, HTTP/1.1) and the "
                + "header lines (name: value, each ended by CRLF)"
        }
    }

    /// The API's error answer (`APIError`, as `JSONResponse` writes it).
    static func body(_ message: String) -> ByteBuffer {
        // Encoding strings cannot fail.
        (try? JSONResponse.encode(APIError.badRequest(message).body)) ?? ByteBuffer(string: #"{"error":{"code":"invalid_request"}}"#)
    }
}
