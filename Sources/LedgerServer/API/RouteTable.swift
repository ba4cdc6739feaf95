import HTTPTypes
import Foundation
import Hummingbird
import Logging
import Synchronization

/// Registers the API's routes on the router, each under the request timeout, and remembers their paths and methods
/// so that a known path called with another method answers 405 with `Allow` rather than 404.
///
/// Routes are registered with their full path, as the OpenAPI document writes it (`{name}` for parameters), so a
/// path in a route file can be searched for; a group adds the middleware (authentication) of its prefix.
struct RouteTable {
    let router: Router<LedgerRequestContext>
    let timeout: Duration
    let known = KnownRoutes()

    /// The routes under `prefix`, each behind `middleware`.
    func group(_ prefix: String, _ middleware: some RouterMiddleware<LedgerRequestContext>) -> RouteGroup {
        RouteGroup(prefix: prefix, group: router.group(Self.routerPath(prefix)).add(middleware: middleware), table: self)
    }

    /// A route without authentication (operational routes, Apple's notifications).
    func on(
        _ method: HTTPRequest.Method, _ path: String,
        _ handler: @escaping @Sendable (Request, LedgerRequestContext) async throws -> Response
    ) {
        register(method, path, handler) { router.on(Self.routerPath(path), method: method, use: $0) }
    }

    fileprivate func register(
        _ method: HTTPRequest.Method, _ path: String,
        _ handler: @escaping @Sendable (Request, LedgerRequestContext) async throws -> Response,
        on add: (@escaping @Sendable (Request, LedgerRequestContext) async throws -> Response) -> Void
    ) {
        known.add(segments: path.split(separator: "/").map(String.init), method: method)
        let timeout = timeout
        add { request, context in try await withRequestTimeout(timeout) { try await handler(request, context) } }
    }

    /// Hummingbird's `/a/:b` → `/a/{b}`, as the OpenAPI document and the route files write paths.
    static func documentedPath(_ path: String) -> String {
        "/" + path.split(separator: "/").map { $0.hasPrefix(":") ? "{" + $0.dropFirst() + "}" : String($0) }.joined(separator: "/")
    }

    /// `/a/{b}` → Hummingbird's `/a/:b`.
    static func routerPath(_ path: String) -> RouterPath {
        let segments = path.split(separator: "/").map { $0.hasPrefix("{") ? ":" + $0.dropFirst().dropLast() : String($0) }
        return RouterPath("/" + segments.joined(separator: "/"))
    }
}

/// Routes sharing a prefix and its middleware.
struct RouteGroup {
    let prefix: String
    let group: RouterGroup<LedgerRequestContext>
    let table: RouteTable

    /// `path` is the full path and starts with the group's prefix.
    func on(
        _ method: HTTPRequest.Method, _ path: String,
        _ handler: @escaping @Sendable (Request, LedgerRequestContext) async throws -> Response
    ) {
        precondition(path.hasPrefix(prefix), "\(path) is not under \(prefix)")
        let rest = String(path.dropFirst(prefix.count))
        table.register(method, path, handler) { group.on(RouteTable.routerPath(rest), method: method, use: $0) }
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

/// `text` percent-decoded; nil when it is not valid percent-encoded UTF-8. Text without a `%` is its own decoding,
/// and is not handed to Foundation's decoder, which cost a status read 1–2% of its server time on every request.
func percentDecoded(_ text: some StringProtocol) -> String? {
    text.utf8.contains(UInt8(ascii: "%")) ? text.removingPercentEncoding : String(text)
}

extension LedgerRequestContext {
    /// A path parameter, percent-decoded.
    func path(_ name: String) throws(APIError) -> String {
        guard let raw = parameters.get(name) else { throw .badRequest("the path needs `\(name)`") }
        guard let decoded = percentDecoded(raw) else { throw .badRequest("`\(name)` is not valid percent-encoding") }
        // PostgreSQL text cannot hold NUL; anything else is looked up as it is (and simply not found). Ids that get
        // stored (users, products) are checked further by their routes.
        guard !decoded.utf8.contains(0) else { throw .badRequest("`\(name)` must not contain NUL characters") }
        return decoded
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
            guard let value = percentDecoded(parts.count > 1 ? parts[1] : "") else {
                throw .badRequest("`\(name)` is not valid percent-encoded UTF-8")
            }
            guard !value.utf8.contains(0) else { throw .badRequest("`\(name)` must not contain NUL characters") }
            return value
        }
        return nil
    }
}
