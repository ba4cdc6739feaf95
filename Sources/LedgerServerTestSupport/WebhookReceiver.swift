import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A webhook receiver on loopback for the tests: a real HTTP server that records every request it answers 2xx (and
/// counts the others), answers 500 to a chosen share of requests, and can be stopped and started again on the same
/// port (a receiver that is down refuses connections).
package final class WebhookReceiver: Sendable {
    package struct Message: Sendable {
        package var id: String
        package var timestamp: String
        package var signature: String
        package var body: String
        package var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
        package var data: [String: Any] { json["data"] as? [String: Any] ?? [:] }
    }

    /// Messages already received, to write a verification file of part of them.
    package struct Subset: Sendable {
        let messages: [Message]

        /// The messages as `scripts/verify-webhooks.sh` reads them, each to be checked with every one of `secrets`.
        package func verificationFile(secrets: [String], at path: String) throws {
            let entries = messages.map { message in
                ["secrets": secrets, "body": message.body,
                 "headers": ["webhook-id": message.id, "webhook-timestamp": message.timestamp,
                             "webhook-signature": message.signature]] as [String: Any]
            }
            try JSONSerialization.data(withJSONObject: entries).write(to: URL(fileURLWithPath: path))
        }
    }

    package static func subset(_ messages: some Sequence<Message>) -> Subset { Subset(messages: Array(messages)) }

    private struct State {
        var accepted: [Message] = []
        var refused = 0
        var failureRate = 0.0
        var group: ServiceGroup?
        var running: Task<Void, any Error>?
    }

    private let state = Mutex(State())
    package private(set) var port: Int {
        get { portValue.withLock { $0 } }
        set { portValue.withLock { $0 = newValue } }
    }
    private let portValue = Mutex(0)

    package init() {}

    package var url: String { "http://127.0.0.1:\(port)/hooks" }
    package var accepted: [Message] { state.withLock { $0.accepted } }
    package var refused: Int { state.withLock { $0.refused } }

    /// Answers 500 to this share of requests from now on (0: none).
    package func failRandomly(_ rate: Double) { state.withLock { $0.failureRate = rate } }

    /// Starts listening (on the port it had before, when restarted).
    package func start() async throws {
        let router = Router()
        router.post("/hooks") { [self] request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let message = Message(id: request.headers[HTTPField.Name("webhook-id")!] ?? "",
                                  timestamp: request.headers[HTTPField.Name("webhook-timestamp")!] ?? "",
                                  signature: request.headers[HTTPField.Name("webhook-signature")!] ?? "",
                                  body: String(buffer: body))
            let fail = state.withLock { state -> Bool in
                if Double.random(in: 0..<1) < state.failureRate {
                    state.refused += 1
                    return true
                }
                state.accepted.append(message)
                return false
            }
            return Response(status: fail ? .internalServerError : .noContent)
        }
        let (ready, readyContinuation) = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in readyContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: Logger(label: "test.receiver", factory: { _ in SwiftLogNoOpLogHandler() }))
        let group = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [],
                                                      logger: Logger(label: "test.receiver", factory: { _ in SwiftLogNoOpLogHandler() })))
        let running = Task { try await group.run() }
        state.withLock {
            $0.group = group
            $0.running = running
        }
        for await bound in ready {
            port = bound
            break
        }
    }

    /// Stops listening; connections are refused until `start`.
    package func stop() async {
        let (group, running) = state.withLock { ($0.group, $0.running) }
        await group?.triggerGracefulShutdown()
        _ = try? await running?.value
    }
}
