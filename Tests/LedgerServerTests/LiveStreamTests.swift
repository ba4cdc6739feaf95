import AppStoreSamples
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import LedgerServer
import LedgerServerTestSupport
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import PostgresClient
import PostgresTestSupport
import Synchronization
import Testing

/// The live stream of a user's status, over a real socket: Server-Sent Events and WebSocket.
@Suite struct LiveStreamTests {
    static let jan1 = AppStorePayloads.jan1
    static let day = AppStorePayloads.day
    static let user = "5f1c8f0e-2b7a-4c1e-9d3a-1b2c3d4e5f60"

    /// One Server-Sent Events stream read with AsyncHTTPClient.
    final class EventStream {
        struct Event {
            var id: String?
            var type: String
            var data: String
            var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:] }
            var products: [String: String] {
                let list = json["products_status"] as? [[String: Any]] ?? []
                return Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as? String ?? "", $0["status"] as? String ?? "") })
            }
        }

        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        var status: Int = 0
        var body: HTTPClientResponse.Body.AsyncIterator?
        var pending = ""

        init(port: Int, path: String, headers: [(String, String)]) async throws {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, timeout: .seconds(60))
            } catch {
                closed = true
                try? await client.shutdown()  // a client dropped unshut traps in its deinit
                throw error
            }
            status = Int(response.status.code)
            body = response.body.makeAsyncIterator()
        }

        /// The next event (a heartbeat comment is an event of type `heartbeat`).
        func next() async throws -> Event? {
            while true {
                if let end = pending.range(of: "\n\n") {
                    let block = String(pending[..<end.lowerBound])
                    pending = String(pending[end.upperBound...])
                    if block.hasPrefix(":") { return Event(id: nil, type: "heartbeat", data: "") }
                    var event = Event(id: nil, type: "message", data: "")
                    for line in block.split(separator: "\n") {
                        if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
                        if line.hasPrefix("event: ") { event.type = String(line.dropFirst(7)) }
                        if line.hasPrefix("data: ") { event.data = String(line.dropFirst(6)) }
                    }
                    return event
                }
                guard let chunk = try await body?.next() else { return nil }
                pending += String(buffer: chunk)
            }
        }

        /// The next event that is not a heartbeat.
        func nextState() async throws -> Event? {
            while let event = try await next() { if event.type != "heartbeat" { return event } }
            return nil
        }

        private var closed = false

        func close() async {
            body = nil
            closed = true
            try? await client.shutdown()
        }

        /// A test that fails before `close()` must not trap in the client's deinit (which would end the whole run).
        deinit {
            if !closed { try? client.syncShutdown() }
        }
    }

    static func notification(_ harness: APIHarness, type: String, subtype: String? = nil, at signed: Int64, expires: Int64) throws -> String {
        let body = try harness.signer.notification(
            type: type, subtype: subtype, signed: signed,
            transactionJSON: AppStorePayloads.transaction(
                id: "\(signed)", original: "800", purchase: "\(signed - 10)", expires: expires, token: Self.user, signed: signed))
        return #"{"signedPayload":"\#(body)"}"#
    }

    @Test(.timeLimit(.minutes(10))) func aNotificationReachesTheStreamAndAReconnectWithItsCursorGetsWhatItMissed() async throws {
        let harness = try await APIHarness.make()
        try await harness.application.test(.live) { client in
            let api = try APIClient(live: client, harness: harness)
            let tenant = try await api.tenant(tokenPolicy: "token_is_app_user_id")
            let hub = Task { await harness.api.live.run() }
            let port = try #require(client.port)
            let headers = [("Authorization", "Bearer \(tenant.secretKey)"), ("Accept", "text/event-stream")]
            let stream = try await EventStream(port: port, path: "/v1/users/\(Self.user)/live", headers: headers)
            #expect(stream.status == 200)
            let snapshot = try #require(try await stream.nextState())
            #expect(snapshot.type == "snapshot")
            #expect(snapshot.products.isEmpty)

            let url = "/v1/apps/\(tenant.appID)/notifications"
            let bought = try await api.send(
                .post, url,
                json: try Self.notification(
                    harness, type: "SUBSCRIBED", subtype: "INITIAL_BUY", at: Self.jan1 + 1000, expires: Self.jan1 + 31 * Self.day))
            #expect(bought.status == .ok)
            try await harness.project()
            let change = try #require(try await stream.nextState())
            #expect(change.type == "change")
            #expect(change.products == ["monthly": "active"])
            let cursor = try #require(change.id)
            #expect(cursor != snapshot.id)
            await stream.close()

            // While disconnected: the month passes and the subscription expires.
            harness.clock.advance(seconds: 30 * 86_400)
            let refunded = try await api.send(
                .post, url,
                json: try Self.notification(
                    harness, type: "EXPIRED", subtype: "VOLUNTARY", at: Self.jan1 + 31 * Self.day + 1000, expires: Self.jan1 + 31 * Self.day))
            #expect(refunded.status == .ok)
            try await harness.project()
            let again = try await EventStream(port: port, path: "/v1/users/\(Self.user)/live", headers: headers + [("Last-Event-ID", cursor)])
            let missed = try #require(try await again.nextState())
            #expect(missed.type == "snapshot")
            #expect(missed.products == ["monthly": "inactive"])
            #expect(try await again.next()?.type == "heartbeat")
            await again.close()
            hub.cancel()
            await hub.value
        }
        await harness.pool.shutdown()
    }

    @Test(.timeLimit(.minutes(10))) func theWebSocketCarriesTheSameMessages() async throws {
        let harness = try await APIHarness.make()
        try await harness.application.test(.live) { client in
            let api = try APIClient(live: client, harness: harness)
            let tenant = try await api.tenant(tokenPolicy: "token_is_app_user_id")
            let hub = Task { await harness.api.live.run() }
            let port = try #require(client.port)
            let url = "/v1/apps/\(tenant.appID)/notifications"
            let posted = try await api.send(
                .post, url,
                json: try Self.notification(
                    harness, type: "SUBSCRIBED", subtype: "INITIAL_BUY", at: Self.jan1 + 1000, expires: Self.jan1 + 31 * Self.day))
            #expect(posted.status == .ok)
            try await harness.project()
            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(tenant.secretKey)"
            let received = ReceivedTexts()
            _ = try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)/v1/users/\(Self.user)/live",
                configuration: .init(additionalHeaders: headers),
                logger: Logger(label: "test.ws")
            ) { inbound, outbound, _ in
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let text) = message { received.append(text) }
                    if received.count == 2 { break }
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
            let texts = received.all
            let first = try #require(texts.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
            #expect(first["type"] as? String == "snapshot")
            #expect(first["cursor"] as? String != nil)
            let state = first["state"] as? [String: Any]
            #expect((state?["products_status"] as? [[String: Any]])?.first?["status"] as? String == "active")
            #expect(texts.dropFirst().first == #"{"type":"heartbeat"}"#)
            hub.cancel()
            await hub.value
        }
        await harness.pool.shutdown()
    }

    @Test func streamsAreRefusedWithoutTheRightCredentialsOrShape() async throws {
        var settings = LiveHub.Settings.testing
        settings.streamsPerKey = 1
        let harness = try await APIHarness.make(live: settings)
        let receipt = try harness.signer.receipt(purchases: [ReceiptBuilder.inAppPurchase(product: "lifetime", transactionId: "9100")])
        try await harness.application.test(.live) { client in
            let api = try APIClient(live: client, harness: harness)
            let tenant = try await api.tenant()
            let (_, aliceCookie) = try await api.uploadReceipt(tenant, user: "alice", receipt: receipt)
            let port = try #require(client.port)
            let accept = ("Accept", "text/event-stream")
            func open(_ user: String, _ headers: [(String, String)]) async throws -> Int {
                let stream = try await EventStream(port: port, path: "/v1/users/\(user)/live", headers: headers)
                let status = stream.status
                await stream.close()
                return status
            }
            #expect(try await open("alice", [accept]) == 401)
            #expect(try await open("bob", [accept, ("APIKey", tenant.publicKey), ("Cookie", aliceCookie)]) == 403)
            #expect(try await open("alice", [("Authorization", "Bearer \(tenant.secretKey)")]) == 406)
            #expect(try await open("alice", [accept, ("Authorization", "Bearer \(tenant.secretKey)"), ("Last-Event-ID", "x'--")]) == 400)
            // The public key with alice's cookie reaches alice; a second stream on the same key is over the limit.
            let alice = try await EventStream(
                port: port, path: "/v1/users/alice/live",
                headers: [accept, ("APIKey", tenant.publicKey), ("Cookie", aliceCookie)])
            #expect(alice.status == 200)
            #expect(try await open("alice", [accept, ("APIKey", tenant.publicKey), ("Cookie", aliceCookie)]) == 429)
            await alice.close()
        }
        await harness.pool.shutdown()
    }

    /// A client that reads nothing fills its buffer and is dropped; the hub keeps serving the others.
    @Test(.timeLimit(.minutes(10))) func aSlowClientIsDropped() async throws {
        var settings = LiveHub.Settings.testing
        settings.heartbeat = .milliseconds(10)
        settings.pollInterval = .milliseconds(10)
        settings.buffer = 3
        let harness = try await APIHarness.make(live: settings)
        let hub = harness.api.live
        let running = Task { await hub.run() }
        let slow = try hub.open(app: "app", user: "u", pseudonym: "usr_u", key: "k")
        // Nobody reads until the hub has closed the stream (reading would make room): then exactly the buffer's
        // worth is waiting.
        #expect(try await eventually { hub.streams == 0 }, "the hub never closed the stream nobody read")
        var buffered = 0
        for await _ in slow.messages { buffered += 1 }
        #expect(buffered == 3)
        running.cancel()
        await running.value
        await harness.pool.shutdown()
    }
}

final class ReceivedTexts: Sendable {
    private let texts = Mutex<[String]>([])
    func append(_ text: String) { texts.withLock { $0.append(text) } }
    var count: Int { texts.withLock { $0.count } }
    var all: [String] { texts.withLock { $0 } }
}
