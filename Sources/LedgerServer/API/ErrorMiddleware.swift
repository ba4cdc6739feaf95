import LedgerDomain
import Hummingbird
import LedgerBilling
import LedgerRecording
import LedgerStore
import LedgerTenancy
import LedgerWebhooks
import Logging
import NIOHTTP1
import PostgresClient

/// Turns every failure into a JSON error: the API's own `APIError`s as they are, the framework's HTTP errors (no
/// such route, body too large) with a code, a database that does not answer as 503 (retry later; nothing was
/// lost), anything else as a logged 500 that reveals no internals. Its log lines name the route template, never the
/// path: paths name app users (`/v1/users/{id}`), and personal data stays out of the logs.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Known routes, to tell "no such path" (404) from "not this method" (405).
    let routes: KnownRoutes?

    /// Answers with the error's response instead of throwing it, so the middlewares outside (metrics, request
    /// id) see every answer alike: Hummingbird's `MetricsMiddleware` times responses but only counts thrown errors,
    /// which left 503s and 504s out of the latency histogram.
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return try Self.apiError(for: error, request: request, context: context, routes: routes).response(from: request, context: context)
        }
    }

    static func apiError(for error: any Error, request: Request, context: Context, routes: KnownRoutes?) -> APIError {
        switch error {
        case let error as APIError:
            if error.status == .gatewayTimeout {
                context.logger.warning("request timed out", metadata: ["route": "\(context.endpointPath ?? "(none)")"])
            }
            return error
        case let error as RecordingError:
            return APIError(error)
        case let error as InvoiceError:
            return APIError(error)
        case let error as GrantError:
            return APIError(error)
        case let error as HTTPError:
            if error.status == .notFound, let allowed = routes?.methods(forPath: request.uri.path), !allowed.isEmpty {
                return APIError(
                    .methodNotAllowed, "method_not_allowed",
                    "\(request.method) is not allowed on \(request.uri.path); use \(allowed.map(\.rawValue).joined(separator: ", "))",
                    headers: [.allow: allowed.map(\.rawValue).joined(separator: ", ")])
            }
            return translate(error, request: request)
        case let error as HTTPParserError:
            // The body did not parse as HTTP/1.1 (a chunk size that is not hex or overflows, a bad chunk end):
            // the client's fault, and nothing was read, so nothing was recorded.
            return .badRequest(
                "the request is not valid HTTP/1.1 (\(error)); send a Content-Length body or well-formed chunks "
                    + "(hexadecimal sizes, each chunk ended by CRLF)")
        case let error as TenancyError:
            switch error {
            case .unknownAccount: return .badRequest(error.description)
            case .unknownApp: return .notFound(error.description)
            }
        case let error as LiveRegistry.Refusal:
            switch error {
            case .tooManyStreams(let limit):
                return APIError(
                    .tooManyRequests, "too_many_streams",
                    "this key has \(limit) live streams open on this server; close one, or retry later", headers: [.retryAfter: "5"])
            }
        case let error as WebhookStoreError:
            return .notFound(error.description)
        case let error as EventStoreError:
            switch error {
            case .invalidEvent(let message):
                return .badRequest("the data cannot be recorded: \(message); remove control characters and keep values in range")
            case .versionConflict, .contention:
                return APIError(.conflict, "conflict", "\(error.description)", headers: [.retryAfter: "1"])
            }
        case let error as PostgresError where error.sqlState?.hasPrefix("22") == true:
            // Class 22, data exception: a value the database cannot hold (a NUL character, an out-of-range number)
            // that slipped past the request checks. The client's input, so a 400; nothing was written.
            return .badRequest(
                "a value in the request cannot be stored (\(error.serverMessage ?? "invalid data")); "
                    + "remove control characters and keep numbers in range")
        case let error as PostgresError where error.isConnectionProblem || error.isPoolClosed:
            context.logger.warning("database unavailable", metadata: ["error": "\(error)"])
            return APIError(
                .serviceUnavailable, "service_unavailable",
                "the database is not reachable right now; retry the request later (recording is idempotent: "
                    + "if this attempt reached the database before it went away, the retry records nothing twice)",
                headers: [.retryAfter: "5"])
        case is CancellationError:
            return APIError(
                .serviceUnavailable, "service_unavailable", "the server is shutting down; retry the request",
                headers: [.retryAfter: "1"])
        default:
            context.logger.error("request failed", metadata: ["error": "\(error)", "route": "\(context.endpointPath ?? "(none)")"])
            return APIError(
                .internalServerError, "internal_error",
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
            return APIError(
                .methodNotAllowed, "method_not_allowed", "\(request.method) is not allowed on \(request.uri.path); see GET /openapi.json",
                headers: error.headers)
        default:
            return APIError(
                error.status, error.status.code < 500 ? "invalid_request" : "internal_error",
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
