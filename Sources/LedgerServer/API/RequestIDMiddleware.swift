import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Gives every request an id (the caller's `X-Request-Id` when it is sane, else Hummingbird's request id), puts it in the
/// request's log metadata and echoes it in the response, so a support ticket can be matched to log lines.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    static var headerName: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let incoming = request.headers[Self.headerName]
        // The caller's id when it sent a usable one, else the framework's own (`hb.request.id` in the logs).
        let id = incoming.flatMap { Self.isAcceptable($0) ? $0 : nil } ?? context.id
        var context = context
        context.logger[metadataKey: "request_id"] = .string(id)
        do {
            var response = try await next(request, context)
            response.headers[Self.headerName] = id
            return response
        } catch let error as any HTTPResponseError {
            var response = try error.response(from: request, context: context)
            response.headers[Self.headerName] = id
            return response
        }
    }

    /// Short printable ASCII only: the id ends up in logs and headers.
    static func isAcceptable(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 128 && value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
