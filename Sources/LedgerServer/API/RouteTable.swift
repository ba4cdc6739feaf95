import HTTPTypes
import Foundation
import Hummingbird
import Logging
import Synchronization

/// Registers the API's routes on the router, each under the request timeout, and remembers their paths and methods
/// so that a known path called with another method answers 405 with `Allow` rather than 404.
struct RouteTable {
    let router: Router<BasicRequestContext>
    let timeout: Duration
    let known = KnownRoutes()

    /// `path` uses `{name}` for parameters, as the OpenAPI document does.
    func on(_ method: HTTPRequest.Method, _ path: String,
            _ handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response) {
        let segments = path.split(separator: "/").map(String.init)
        known.add(segments: segments, method: method)
        let routerPath = "/" + segments.map { $0.hasPrefix("{") ? ":" + $0.dropFirst().dropLast() : $0 }.joined(separator: "/")
        let timeout = timeout
        router.on(RouterPath(routerPath), method: method) { request, context in
            try await withRequestTimeout(timeout) { try await handler(request, context) }
        }
    }

}

/// The registered paths and methods, read when a request matches no route.
final class KnownRoutes: Sendable {
    private let routes = Mutex<[(segments: [String], method: HTTPRequest.Method)]>([])

    func add(segments: [String], method: HTTPRequest.Method) {
        routes.withLock { $0.append((segments, method)) }
    }

    /// The methods registered for a concrete request path (empty when no route has that path).
    func methods(forPath path: String) -> [HTTPRequest.Method] {
        let parts = path.split(separator: "/").map(String.init)
        return routes.withLock { routes in
            routes.filter { route in
                route.segments.count == parts.count
                    && zip(route.segments, parts).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
            }.map(\.method)
        }
    }
}

extension BasicRequestContext {
    /// A path parameter, percent-decoded.
    func path(_ name: String) throws(APIError) -> String {
        guard let raw = parameters.get(name) else { throw .badRequest("the path needs `\(name)`") }
        guard let decoded = raw.removingPercentEncoding else { throw .badRequest("`\(name)` is not valid percent-encoding") }
        // PostgreSQL text cannot hold NUL; anything else is looked up as it is (and simply not found). Ids that get
        // stored (users, products) are checked further by their routes.
        guard !decoded.unicodeScalars.contains("\u{0}") else { throw .badRequest("`\(name)` must not contain NUL characters") }
        return decoded
    }

    /// The request id (see `RequestIDMiddleware`), for event metadata.
    var requestID: String? {
        guard let value = logger[metadataKey: "request_id"], case .string(let id) = value else { return nil }
        return id
    }
}

extension Request {
    /// A query parameter (the first of that name), percent-decoded. Hummingbird's `queryParameters` hands back the
    /// raw text when the encoding is broken or not UTF-8 (`%ZZ`, `%FF`, `%C0%AF`), which would then be looked up
    /// as a different id; here that is a 400 instead.
    func query(_ name: String) throws(APIError) -> String? {
        guard let query = uri.query else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0] == name else { continue }
            guard let value = (parts.count > 1 ? String(parts[1]) : "").removingPercentEncoding else {
                throw .badRequest("`\(name)` is not valid percent-encoded UTF-8")
            }
            guard !value.unicodeScalars.contains("\u{0}") else { throw .badRequest("`\(name)` must not contain NUL characters") }
            return value
        }
        return nil
    }
}
