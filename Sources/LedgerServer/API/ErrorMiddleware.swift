import Hummingbird
import LedgerStore
import Logging
import PostgresClient

/// Turns every failure into a JSON error: the API's own `APIError`s as they are, the framework's HTTP errors (no
/// such route, body too large) with a code, a database that does not answer as 503 (retry later; nothing was
/// lost), anything else as a logged 500 that reveals no internals.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Known routes, to tell "no such path" (404) from "not this method" (405).
    let routes: KnownRoutes?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as HTTPError {
            if error.status == .notFound, let allowed = routes?.methods(forPath: request.uri.path), !allowed.isEmpty {
                throw APIError(.methodNotAllowed, "method_not_allowed",
                               "\(request.method) is not allowed on \(request.uri.path); use \(allowed.map(\.rawValue).joined(separator: ", "))",
                               headers: [.allow: allowed.map(\.rawValue).joined(separator: ", ")])
            }
            throw Self.translate(error, request: request)
        } catch let error as TenancyError {
            switch error {
            case .unknownAccount: throw APIError.badRequest(error.description)
            case .unknownApp: throw APIError.notFound(error.description)
            }
        } catch let error as EventStoreError {
            switch error {
            case .invalidEvent(let message):
                throw APIError.badRequest("the data cannot be recorded: \(message); remove control characters and keep values in range")
            case .versionConflict, .contention:
                throw APIError(.conflict, "conflict", "\(error.description)", headers: [.retryAfter: "1"])
            }
        } catch let error as PostgresError where error.sqlState?.hasPrefix("22") == true {
            // Class 22, data exception: a value the database cannot hold (a NUL character, an out-of-range number)
            // that slipped past the request checks. The client's input, so a 400; nothing was written.
            throw APIError.badRequest("a value in the request cannot be stored (\(error.serverMessage ?? "invalid data")); remove control characters and keep numbers in range")
        } catch let error as PostgresError where error.isConnectionProblem || error.isPoolClosed {
            context.logger.warning("database unavailable", metadata: ["error": "\(error)"])
            throw APIError(.serviceUnavailable, "service_unavailable",
                           "the database is not reachable right now; retry the request later (recording is idempotent: if this attempt reached the database before it went away, the retry records nothing twice)",
                           headers: [.retryAfter: "5"])
        } catch is CancellationError {
            throw APIError(.serviceUnavailable, "service_unavailable", "the server is shutting down; retry the request")
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            throw APIError(.internalServerError, "internal_error",
                           "the server failed to handle the request; it was logged under this response's X-Request-Id")
        }
    }

    static func translate(_ error: HTTPError, request: Request) -> APIError {
        switch error.status {
        case .notFound:
            return .notFound("there is no endpoint \(request.method) \(request.uri.path); see GET /openapi.json")
        case .contentTooLarge:
            return APIError(.contentTooLarge, "payload_too_large", "the request body is larger than the server accepts; \(error.body ?? "send less")")
        case .methodNotAllowed:
            return APIError(.methodNotAllowed, "method_not_allowed", "\(request.method) is not allowed on \(request.uri.path); see GET /openapi.json",
                            headers: error.headers)
        default:
            return APIError(error.status, error.status.code < 500 ? "invalid_request" : "internal_error",
                            error.body ?? error.status.reasonPhrase)
        }
    }
}

extension PostgresError {
    var serverMessage: String? {
        if case .server(let error) = self { return error.message }
        return nil
    }

    var isPoolClosed: Bool {
        if case .poolClosed = self { return true }
        return false
    }
}
