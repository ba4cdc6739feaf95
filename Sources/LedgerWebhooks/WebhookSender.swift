import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// One HTTP POST of a webhook, with the outbound limits: the policy's address check, connect and response timeouts,
/// no redirects (a receiver that moved must be updated, not followed), and at most `responseLimit` bytes of the
/// answer read (the body is only kept, shortened, as the error of a failed attempt).
package struct WebhookSender: Sendable {
    package struct Result: Sendable, Equatable {
        package var statusCode: Int?
        package var error: String?
    }

    package struct Limits: Sendable {
        package var connectTimeout: Duration
        package var responseTimeout: Duration
        package var responseLimit: Int

        package init(connectTimeout: Duration = .seconds(5), responseTimeout: Duration = .seconds(15), responseLimit: Int = 64 * 1024) {
            self.connectTimeout = connectTimeout
            self.responseTimeout = responseTimeout
            self.responseLimit = responseLimit
        }
    }

    let client: LazyHTTPClient
    let policy: OutboundPolicy
    let limits: Limits

    /// A client of its own (shut down with `shutdown()`).
    package init(policy: OutboundPolicy, limits: Limits = Limits()) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .init(limits.connectTimeout), read: .init(limits.responseTimeout)),
            decompression: .disabled)
        configuration.httpVersion = .http1Only
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 16)
        // One attempt is one try: a refused connection fails it at once, and the retry schedule decides when to try
        // again (the client's own retries would hold the endpoint's slot for the whole connect timeout).
        configuration.connectionPool.retryConnectionEstablishment = false
        // No request span of the client's own (it records the full URL): `WebhookDispatcher.deliver` makes the span
        // and sends its `traceparent`.
        configuration.tracing.tracer = nil
        self.client = LazyHTTPClient(configuration: configuration)
        self.policy = policy
        self.limits = limits
    }

    package func shutdown() async {
        await client.shutdown()
    }

    package func post(url: String, headers: [(String, String)], body: [UInt8]) async -> Result {
        do {
            try await policy.check(url)
        } catch {
            return Result(statusCode: nil, error: error.description)
        }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.headers.replaceOrAdd(name: "content-type", value: "application/json")
        request.headers.replaceOrAdd(name: "user-agent", value: "subscription-ledger-webhooks/1")
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.client().execute(request, timeout: .init(limits.connectTimeout + limits.responseTimeout))
            var kept: [UInt8] = []
            var over = false
            for try await chunk in response.body {
                if kept.count + chunk.readableBytes > limits.responseLimit {
                    over = true
                    break
                }
                kept += chunk.readableBytesView
            }
            let status = Int(response.status.code)
            if (200..<300).contains(status) {
                let note = over ? "the answer was longer than \(limits.responseLimit) bytes; the rest was not read" : nil
                return Result(statusCode: status, error: note)
            }
            if (300..<400).contains(status) {
                return Result(statusCode: status, error: "redirects are not followed; update the endpoint's URL to where the receiver moved")
            }
            let excerpt = String(decoding: kept.prefix(500), as: UTF8.self)
            return Result(statusCode: status, error: excerpt.isEmpty ? "HTTP \(status)" : "HTTP \(status): \(excerpt)")
        } catch {
            return Result(statusCode: nil, error: Self.describe(error))
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "connecting timed out"
            case .readTimeout, .deadlineExceeded: return "the receiver did not answer in time"
            case .remoteConnectionClosed: return "the receiver closed the connection"
            default: return "\(error)"
            }
        }
        return String(describing: error)
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// The sender's HTTP client, made on first use. A dispatcher that is built but never runs (a start that failed later,
/// a test that stopped early) then holds no client, and one dropped without `shutdown()` is shut down in the
/// background instead of trapping (AsyncHTTPClient traps when a client it did not see shut down is deinitialized).
final class LazyHTTPClient: Sendable {
    enum State {
        case unused
        case running(HTTPClient)
        case shutDown
    }

    struct ShutDown: Error, CustomStringConvertible {
        var description: String { "the webhook sender is shutting down" }
    }

    private let configuration: HTTPClient.Configuration
    private let state = Mutex(State.unused)

    init(configuration: HTTPClient.Configuration) { self.configuration = configuration }

    func client() throws -> HTTPClient {
        try state.withLock { state in
            switch state {
            case .running(let client): return client
            case .shutDown: throw ShutDown()
            case .unused:
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                state = .running(client)
                return client
            }
        }
    }

    func shutdown() async {
        let client = state.withLock { state -> HTTPClient? in
            defer { state = .shutDown }
            if case .running(let client) = state { return client }
            return nil
        }
        try? await client?.shutdown()
    }

    deinit {
        // Not awaited: the shutdown keeps the client alive until it has closed its connections.
        if case .running(let client) = state.withLock({ $0 }) { client.shutdown { _ in } }
    }
}
