import AsyncHTTPClient
import Foundation
import UTCTime
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import LedgerTracing
import Tracing

/// A client of the App Store Server API for one app (its In-App Purchase key and one environment's base URL).
///
/// Every request carries a fresh ES256 token (`AppStoreJWT`). Failures Apple calls retryable, 429 (after its
/// `Retry-After`) and 5xx are retried under `AppStoreRetryPolicy`; at most `maximumConcurrentRequests` requests of this
/// client are in flight at once (Apple rate-limits per app). Errors are `AppStoreServerAPIError`s carrying Apple's code.
/// Signed items in the answers are returned as Apple sent them: verify them offline before trusting them.
package final class AppStoreServerAPIClient: Sendable {
    package enum Environment: String, Sendable, CaseIterable {
        case production
        case sandbox

        /// Apple's hosts.
        package var defaultBaseURL: String {
            switch self {
            case .production: "https://api.storekit.itunes.apple.com"
            case .sandbox: "https://api.storekit-sandbox.itunes.apple.com"
            }
        }
    }

    package let key: AppStoreAPIKey
    package let baseURL: String
    let http: HTTPClient
    let retryPolicy: AppStoreRetryPolicy
    let limit: ConcurrencyLimit
    let logger: Logger
    let now: @Sendable () -> Instant
    let random: @Sendable () -> Double

    /// `baseURL` must be https, or http on a loopback address (a local fake server in tests).
    package init(
        key: AppStoreAPIKey, baseURL: String, httpClient: HTTPClient = .appStore, retryPolicy: AppStoreRetryPolicy = AppStoreRetryPolicy(),
        maximumConcurrentRequests: Int = 4, logger: Logger = Logger(label: "ledger.appstore-api"),
        now: @escaping @Sendable () -> Instant = { Instant(Date()) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) throws(AppStoreAPIKeyError) {
        self.key = key
        self.baseURL = try Self.checkedBaseURL(baseURL)
        self.http = httpClient
        self.retryPolicy = retryPolicy
        self.limit = ConcurrencyLimit(limit: maximumConcurrentRequests)
        self.logger = logger
        self.now = now
        self.random = random
    }

    /// The base URL without a trailing slash, if acceptable.
    package static func checkedBaseURL(_ text: String) throws(AppStoreAPIKeyError) -> String {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            url.user == nil, url.query == nil
        else {
            throw AppStoreAPIKeyError("base_url \(text) is not an absolute URL such as https://api.storekit.itunes.apple.com")
        }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw AppStoreAPIKeyError("base_url \(text) must be https (plain http only on a loopback address, for a local test server)")
        }
        return trimmed
    }

    // MARK: The calls

    /// Get Transaction History (v2), oldest first: one page from `revision` (nil: the first page).
    package func transactionHistory(transactionID: String, revision: String? = nil) async throws(AppStoreServerAPIError) -> TransactionHistoryPage {
        var query = [("sort", "ASCENDING")]
        if let revision { query.insert(("revision", revision), at: 0) }
        return try await call(.GET, "/inApps/v2/history/\(Self.segment(transactionID))", query: query)
    }

    /// Get All Subscription Statuses of the customer who made `transactionID`.
    package func allSubscriptionStatuses(transactionID: String) async throws(AppStoreServerAPIError) -> SubscriptionStatuses {
        try await call(.GET, "/inApps/v1/subscriptions/\(Self.segment(transactionID))")
    }

    /// Get Notification History: one page (`paginationToken` nil: the first).
    package func notificationHistory(_ query: NotificationHistoryQuery, paginationToken: String? = nil) async throws(AppStoreServerAPIError)
        -> NotificationHistoryPage
    {
        try await call(
            .POST, "/inApps/v1/notifications/history", query: paginationToken.map { [("paginationToken", $0)] } ?? [],
            body: Self.json(query))
    }

    /// Request a Test Notification; returns its token.
    package func requestTestNotification() async throws(AppStoreServerAPIError) -> TestNotificationRequested {
        try await call(.POST, "/inApps/v1/notifications/test")
    }

    /// Get Test Notification Status.
    package func testNotificationStatus(token: String) async throws(AppStoreServerAPIError) -> TestNotificationStatus {
        try await call(.GET, "/inApps/v1/notifications/test/\(Self.segment(token))")
    }

    /// Look Up Order ID (the order id of the customer's e-mail receipt).
    package func lookUpOrder(orderID: String) async throws(AppStoreServerAPIError) -> OrderLookup {
        try await call(.GET, "/inApps/v1/lookup/\(Self.segment(orderID))")
    }

    /// Get Refund History (v2): one page from `revision`.
    package func refundHistory(transactionID: String, revision: String? = nil) async throws(AppStoreServerAPIError) -> RefundHistoryPage {
        try await call(.GET, "/inApps/v2/refund/lookup/\(Self.segment(transactionID))", query: revision.map { [("revision", $0)] } ?? [])
    }

    /// Send Consumption Information (v2), the answer to a `CONSUMPTION_REQUEST` about `transactionID`; returns Apple's
    /// status (202 accepted, empty body).
    @discardableResult
    package func sendConsumptionInformation(transactionID: String, _ information: ConsumptionInformation) async throws(AppStoreServerAPIError)
        -> Int
    {
        try await send(
            .PUT, "/inApps/v2/transactions/consumption/\(Self.segment(transactionID))", query: [],
            body: Self.json(information)
        ).status
    }

    // MARK: Transport

    func call<T: Decodable>(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], body: Data? = nil)
        async throws(AppStoreServerAPIError) -> T
    {
        let bytes = try await send(method, path, query: query, body: body).data
        do {
            return try JSONDecoder().decode(T.self, from: bytes)
        } catch {
            throw .malformedResponse("\(method) \(path): \(error)")
        }
    }

    /// One call, retried under the policy; the status and body of the successful answer.
    func send(_ method: HTTPMethod, _ path: String, query: [(String, String)], body: Data?) async throws(AppStoreServerAPIError)
        -> (status: Int, data: Data)
    {
        var attempt = 1
        while true {
            let outcome = await limit.run { await once(method, path, query: query, body: body) }
            switch outcome {
            case .success(let answer): return answer
            case .failure(let failure):
                Self.count(failure.error)
                switch retryPolicy.decision(attempt: attempt, error: failure.error, retryAfter: failure.retryAfter, random: random()) {
                case .giveUp: throw failure.error
                case .retry(let wait):
                    logger.notice(
                        "App Store Server API call failed; retrying",
                        metadata: [
                            "path": "\(path)", "attempt": "\(attempt)", "error": "\(failure.error)", "wait": "\(wait)"
                        ])
                    do {
                        try await Task.sleep(for: wait)
                    } catch {
                        throw failure.error  // cancelled: give up with what happened
                    }
                    attempt += 1
                }
            }
        }
    }

    /// Every failed call (retried or not), by Apple's error code, HTTP status or `transport` / `malformed`; a 429
    /// counts in its own counter too, so on-call sees Apple slowing the ledger down.
    static func count(_ error: AppStoreServerAPIError) {
        let code: String =
            switch error {
            case .rejected(let status, let errorCode, _): String(errorCode ?? status)
            case .transport: "transport"
            case .malformedResponse: "malformed"
            }
        Counter(label: "ledger_appstore_api_errors_total", dimensions: [("code", code)]).increment()
        if case .rejected(429, _, _) = error { Counter(label: "ledger_appstore_api_rate_limited_total").increment() }
    }

    struct Failure: Error {
        var error: AppStoreServerAPIError
        var retryAfter: String?
    }

    /// One HTTP request, as a client span of the current trace (or a trace of its own) that it carries to Apple in
    /// `traceparent`. The span names the route with ids replaced (`/inApps/v1/history/{id}`): transaction ids stay out.
    private func once(_ method: HTTPMethod, _ path: String, query: [(String, String)], body: Data?) async
        -> Result<(status: Int, data: Data), Failure>
    {
        await withSpan("appstore.api \(method.rawValue) \(Self.template(path))", ofKind: .client) { span in
            let result = await request(method, path, query: query, body: body, trace: span.context)
            switch result {
            case .success(let answer): span.attributes["http.response.status_code"] = answer.status
            case .failure(let failure):
                if case .rejected(let status, _, _) = failure.error { span.attributes["http.response.status_code"] = status }
                span.setStatus(SpanStatus(code: .error, message: "\(failure.error)"))
            }
            return result
        }
    }

    /// A path with every segment that holds a digit (an id), other than a version (`v1`), written `{id}`.
    static func template(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { segment in
                let isVersion = segment.first == "v" && segment.count > 1 && segment.dropFirst().allSatisfy(\.isNumber)
                return segment.contains(where: \.isNumber) && !isVersion ? "{id}" : String(segment)
            }
            .joined(separator: "/")
    }

    private func request(
        _ method: HTTPMethod, _ path: String, query: [(String, String)], body: Data?, trace: InstrumentationContext
    ) async -> Result<(status: Int, data: Data), Failure> {
        let token: String
        do {
            token = try AppStoreJWT.token(for: key, issuedAt: now())
        } catch {
            return .failure(Failure(error: .transport("the request could not be signed: \(error)")))
        }
        var request = HTTPClientRequest(url: baseURL + path + Self.queryString(query))
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "subscription-ledger")
        for (name, value) in TraceContext.headers(of: trace) { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            let response = try await http.execute(request, timeout: .seconds(30))
            let buffer = try await response.body.collect(upTo: 16 << 20)
            let data = Data(buffer.readableBytesView)
            let status = Int(response.status.code)
            if (200..<300).contains(status) { return .success((status, data)) }
            let apple = try? JSONDecoder().decode(AppleErrorBody.self, from: data)
            return .failure(
                Failure(
                    error: .rejected(status: status, errorCode: apple?.errorCode, errorMessage: apple?.errorMessage),
                    retryAfter: response.headers.first(name: "Retry-After")))
        } catch {
            return .failure(Failure(error: .transport("\(method) \(path): \(error)")))
        }
    }

    static func json(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding these plain structs cannot fail; an empty object would be refused by Apple, loudly.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }

    /// An id as one path segment: ids are digits or letters; anything else is percent-encoded so it cannot change the path.
    static func segment(_ id: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
        return id.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    static func queryString(_ query: [(String, String)]) -> String {
        guard !query.isEmpty else { return "" }
        return "?" + query.map { "\(segment($0.0))=\(segment($0.1))" }.joined(separator: "&")
    }
}

extension HTTPClient {
    /// The App Store Server API's client: `HTTPClient.shared`'s settings without the client's own request spans, which
    /// record the full URL (transaction ids in its path and query); `AppStoreServerAPIClient` makes its own span per
    /// request instead, with the ids replaced. Process-wide like `.shared`, so never shut down.
    package static let appStore: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()
}
