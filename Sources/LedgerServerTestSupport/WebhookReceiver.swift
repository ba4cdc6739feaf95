import AppStoreServerTestSupport
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
        /// The W3C trace context the delivery carried, if any.
        package var traceparent: String?
        package var arrivedAt = ContinuousClock.now
        package var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
        package var data: [String: Any] { json["data"] as? [String: Any] ?? [:] }
    }

    /// Messages already received, to write a verification file of part of them.
    package struct Subset: Sendable {
        let messages: [Message]

        /// The messages as `scripts/verify-webhooks.sh` reads them, each to be checked with every one of `secrets`.
        package func verificationFile(secrets: [String], at path: String) throws {
            let entries = messages.map { message in
                [
                    "secrets": secrets, "body": message.body,
                    "headers": [
                        "webhook-id": message.id, "webhook-timestamp": message.timestamp,
                        "webhook-signature": message.signature
                    ]
                ] as [String: Any]
            }
            try JSONSerialization.data(withJSONObject: entries).write(to: URL(fileURLWithPath: path))
        }
    }

    /// What breaks the order per user among `messages` (first arrival of each webhook-id): per user, sequences 1, 2,
    /// 3… in arrival order, each naming the one before it, and each message's id its delivery id. Empty: in order.
    package static func orderProblems(_ messages: [Message]) -> [String] {
        var seen: Set<String> = []
        var last: [String: Int] = [:]
        var problems: [String] = []
        for message in messages where seen.insert(message.id).inserted {
            let data = message.data
            let user = data["app_user_id"] as? String ?? "(none)"
            let sequence = data["sequence"] as? Int ?? -1
            if message.id != data["delivery_id"] as? String { problems.append("\(message.id) carries delivery_id \(data["delivery_id"] ?? "none")") }
            if sequence != (last[user] ?? 0) + 1 { problems.append("user \(user): sequence \(sequence) after \(last[user] ?? 0)") }
            if data["previous_sequence"] as? Int != last[user] { problems.append("user \(user): previous_sequence of \(sequence)") }
            last[user] = sequence
        }
        return problems
    }

    package static func subset(_ messages: some Sequence<Message>) -> Subset { Subset(messages: Array(messages)) }

    private struct State {
        var accepted: [Message] = []
        var refused = 0
        var failureRate = 0.0
        /// How many of the next requests are refused whatever the rate.
        var refusingNext = 0
        var group: ServiceGroup?
        var running: Task<Void, any Error>?
        var listener: (any Channel)?
        /// Requests whose body contains it wait unanswered until `release`.
        var holding: String?
        var held: [CheckedContinuation<Void, Never>] = []
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

    /// Answers 500 to this share of requests from now on (0: none), and to the next `first` requests in any case: a
    /// test of retries must not depend on the dice refusing one.
    package func failRandomly(_ rate: Double, first: Int = 0) {
        state.withLock {
            $0.failureRate = rate
            $0.refusingNext = first
        }
    }

    /// Leaves every request whose body contains `marker` unanswered until `release()`: a receiver slow for one user.
    package func hold(bodiesContaining marker: String) { state.withLock { $0.holding = marker } }

    /// How many requests are being held.
    package var heldCount: Int { state.withLock { $0.held.count } }

    /// Answers the held requests, and holds no more.
    package func release() {
        let held = state.withLock { state in
            state.holding = nil
            defer { state.held.removeAll() }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// Starts listening (on the port it had before, when restarted: the old listener may take a moment to let go of
    /// it, so a refused bind is tried again for up to ten seconds).
    ///
    /// The port is below Linux's ephemeral range (32768–60999): while the receiver is down, a port from that range
    /// may be taken as the local end of some client's connection, and the receiver could not listen on it again.
    package func start() async throws {
        let first = port == 0
        for attempt in 1... {
            if first { port = Int.random(in: 20_000..<32_000) }
            do {
                return try await listen()
            } catch  where attempt < 100 && "\(error)".contains("Address already in use") {
                if !first { try await Task.sleep(for: .milliseconds(100)) }
            }
        }
    }

    private func listen() async throws {
        let router = Router()
        router.post("/hooks") { [self] request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let message = Message(
                id: request.headers[HTTPField.Name("webhook-id")!] ?? "",
                timestamp: request.headers[HTTPField.Name("webhook-timestamp")!] ?? "",
                signature: request.headers[HTTPField.Name("webhook-signature")!] ?? "",
                body: String(buffer: body), traceparent: request.headers[HTTPField.Name("traceparent")!])
            if let marker = state.withLock({ $0.holding }), message.body.contains(marker) {
                await withCheckedContinuation { continuation in
                    let answerNow = state.withLock { state -> Bool in
                        guard state.holding != nil else { return true }
                        state.held.append(continuation)
                        return false
                    }
                    if answerNow { continuation.resume() }
                }
            }
            let fail = state.withLock { state -> Bool in
                if state.refusingNext > 0 || Double.random(in: 0..<1) < state.failureRate {
                    state.refusingNext = max(0, state.refusingNext - 1)
                    state.refused += 1
                    return true
                }
                state.accepted.append(message)
                return false
            }
            // No keep-alive: a connection held open by the sender would hold the port after `stop`.
            return Response(status: fail ? .internalServerError : .noContent, headers: [.connection: "close"])
        }
        let (ready, readyContinuation) = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router, server: .closingHTTP1, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { [self] channel in
                state.withLock { $0.listener = channel }
                readyContinuation.yield(channel.localAddress?.port ?? 0)
            },
            logger: Logger(label: "test.receiver", factory: { _ in SwiftLogNoOpLogHandler() }))
        let group = ServiceGroup(
            configuration: .init(
                services: [application], gracefulShutdownSignals: [],
                logger: Logger(label: "test.receiver", factory: { _ in SwiftLogNoOpLogHandler() })))
        let running = Task {
            defer { readyContinuation.finish() }
            try await group.run()
        }
        state.withLock {
            $0.group = group
            $0.running = running
        }
        var bound: Int?
        for await port in ready {
            bound = port
            break
        }
        guard let bound else {
            _ = try await running.value
            throw ReceiverError.didNotStart
        }
        port = bound
    }

    package enum ReceiverError: Error { case didNotStart }

    /// Stops listening; connections are refused until `start`.
    package func stop() async {
        // The listener closes first, so the port is free at once; every answer says `Connection: close`, so no
        // client holds the graceful shutdown up.
        let (group, running, listener) = state.withLock { ($0.group, $0.running, $0.listener) }
        try? await listener?.close()
        await stopTestServer(group, running: running)
    }
}
