import AppStoreSamples
import EmbeddedPostgres
import Foundation
import Glibc
import Hummingbird
import LedgerDomain
import LedgerStore
import LedgerTenancy
import LedgerWebhooks
import Logging
import PostgresClient
import ServiceLifecycle
import Synchronization
import UTCTime

/// Live streams and webhooks under the notification load: 1,000 users each hold a Server-Sent Events stream while wrk
/// posts signed notifications about them (a purchase, then renewals that move their entitlement's expiry), and a
/// webhook endpoint on loopback receives every change.
///
/// Commit-to-client latency: for each state a stream received, from the recorded time of the newest event of that
/// user the state includes (PostgreSQL's `now()` of the appending transaction, a moment before its commit) to the
/// message's arrival: an upper bound of the time from commit to client. Webhook deliveries per second: deliveries
/// made during the run divided by the time from the first one made to the last one acknowledged.
struct LiveBenchmark {
    let cluster: BenchCluster
    let server: ServerProcess
    let signer: AppStoreTestSigner
    let users: Int
    let renewals: Int
    let seconds: Int

    func run() async throws -> [Figure] {
        let pool = cluster.pool(size: 1)
        defer { Task { await pool.shutdown() } }
        let tenancy = TenancyStore(pool: pool)
        let account = try await tenancy.createAccount(name: "bench live")
        let app = try await tenancy.createApp(.init(accountID: account.id, name: "live", bundleID: "com.example.app", appleAppID: 1234,
                                                    appAccountTokenPolicy: .tokenIsAppUserID))
        _ = try await tenancy.putProduct(app: app.id, .init(productID: "monthly", type: .autoRenewable, subscriptionGroup: "main",
                                                            entitlements: ["pro"]))
        let key = try await tenancy.createKey(app: app.id, kind: .secret, name: "bench").key
        let receiver = try await Receiver.start()
        defer { Task { await receiver.stop() } }
        // As `POST /v1/apps/{app}/webhooks` makes it (the store's own API is the server's); the receiver checks no signature.
        let endpointURL = "http://127.0.0.1:\(receiver.port)/hooks"
        _ = try await pool.query(
            """
            INSERT INTO ledger.webhook_endpoints (app_id, endpoint_id, url, description, event_types, environments, secret)
            VALUES (\(app.id), 'we_bench', \(endpointURL), 'bench', '{}', '{production,sandbox}', 'whsec_YmVuY2htYXJrLXNlY3JldC0wMTIzNDU2Nzg5')
            """)
        let names = (0..<users).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
        let streams = try await Streams.open(names, port: server.port, key: key)
        let bodies = NSTemporaryDirectory() + "ledger-bench-live.jsonl"
        try writeBodies(names, to: bodies)
        defer { try? FileManager.default.removeItem(atPath: bodies) }
        server.resetPeak()
        let load = try await WrkResult.run(baseURL: server.baseURL, seconds: seconds, connections: 32, environment: [
            "BENCH_MODE": "notifications", "BENCH_BODIES": bodies, "BENCH_PATH": "/v1/apps/\(app.id)/notifications",
        ])
        // Until the fan-out has passed the app's last event, every delivery is acknowledged and every stream has its
        // last state (or a minute has passed). Nothing pending alone is not the end: while the fan-out is behind, the
        // dispatcher can have sent everything made so far (a run measured 9,709 of 12,999 deliveries that way).
        let deadline = ContinuousClock.now + .seconds(60)
        var pending: Int64 = 1
        while pending > 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            pending = try await pool.query("""
                SELECT count(*) + (SELECT count(*) FROM ledger.webhook_fanout f
                                   WHERE (f.transaction_id, f.position) < (SELECT transaction_id, position FROM ledger.events
                                                                            WHERE app_id = \(app.id)
                                                                            ORDER BY transaction_id DESC, position DESC LIMIT 1))
                FROM ledger.webhook_deliveries WHERE app_id = \(app.id) AND status <> 'succeeded'
                """).first?.decode(Int64.self, at: 0) ?? 0
        }
        try await Task.sleep(for: .seconds(1))
        let received = streams.stop()
        let types = Dictionary(grouping: received, by: \.type).mapValues(\.count)
        FileHandle.standardError.write(Data("bench: live messages received \(types), webhooks pending at the end \(pending)\n".utf8))
        let latencies = try await commitToClient(received, names: names, app: app.id, pool: pool)
        let span = try await pool.query("""
            SELECT count(*), (extract(epoch FROM max(finished_at) - min(created_at)) * 1000000)::bigint FROM ledger.webhook_deliveries
            WHERE app_id = \(app.id) AND status = 'succeeded'
            """).first
        let delivered = try span?.decode(Int64.self, at: 0) ?? 0
        let micros = try span?.decode(Int64?.self, at: 1) ?? 0
        // Which of the two stages lagged behind the notifications: the fan-out (making the deliveries, behind the
        // projections) or the dispatcher (sending them).
        let lags = try await pool.query("""
            SELECT (extract(epoch FROM (SELECT max(created_at) FROM ledger.webhook_deliveries WHERE app_id = \(app.id))
                                      - (SELECT max(recorded_at) FROM ledger.events WHERE app_id = \(app.id))) * 1000)::bigint,
                   (extract(epoch FROM max(finished_at) - max(created_at)) * 1000)::bigint
            FROM ledger.webhook_deliveries WHERE app_id = \(app.id)
            """).first
        let fanOutLag = Double(try lags?.decode(Int64?.self, at: 0) ?? 0) / 1000
        let dispatchLag = Double(try lags?.decode(Int64?.self, at: 1) ?? 0) / 1000
        // The ingest rate from the log itself, as the ingest figure measures it.
        let ingest = try await pool.query("""
            SELECT count(*), (extract(epoch FROM max(recorded_at) - min(recorded_at)) * 1000000)::bigint FROM ledger.events
            WHERE app_id = \(app.id) AND event_type = 'appstore.notification'
            """).first
        let notified = try ingest?.decode(Int64.self, at: 0) ?? 0
        let ingestMicros = try ingest?.decode(Int64?.self, at: 1) ?? 0
        let notificationsPerSecond = ingestMicros > 0 ? Double(notified - 1) / (Double(ingestMicros) / 1e6) : 0
        return [
            Figure(name: "live streams: commit to client",
                   workload: "\(users) SSE streams, \(notified) notifications about their users (wrk, 32 connections)",
                   value: latencies.p99, unit: "ms p99", target: "≤ 1 s p99",
                   detail: ["p50 ms": latencies.p50, "states received": Double(latencies.count), "streams": Double(users),
                            "notifications/s": notificationsPerSecond, "notification p99 ms": load.p99Ms,
                            "server peak RSS MiB": server.peakRSSMiB()],
                   lowerIsBetter: true),
            Figure(name: "webhook deliveries", workload: "one endpoint on loopback, every change of those users",
                   value: micros > 0 ? Double(delivered) / (Double(micros) / 1e6) : 0, unit: "deliveries/s",
                   reference: "the notifications recorded in the same run (100%: the webhooks keep up with ingest)",
                   referenceValue: notificationsPerSecond,
                   detail: ["delivered": Double(delivered), "received": Double(receiver.count), "pending at the end": Double(pending),
                            "last delivery made after the last notification s": fanOutLag,
                            "last delivery acknowledged after it was made s": dispatchLag]),
        ]
    }

    /// For each state received: its arrival minus the recorded time of the newest event of the user it includes
    /// (by its cursor) that an earlier state of the same stream did not include.
    private func commitToClient(_ received: [Streams.Message], names: [String], app: String, pool: PostgresPool) async throws
        -> (p50: Double, p99: Double, count: Int) {
        var events: [String: [(checkpoint: LogCheckpoint, recorded: Double)]] = [:]
        for row in try await pool.query("""
            SELECT stream_id, transaction_id, position, extract(epoch FROM recorded_at)::float8::text FROM ledger.events
            WHERE app_id = \(app) AND stream_id LIKE 'otx:%'
            """) {
            events[try row.decode(String.self, at: 0), default: []].append((
                LogCheckpoint(transactionID: try row.decode(UInt64.self, at: 1), position: try row.decode(Int64.self, at: 2)),
                Double(try row.decode(String.self, at: 3)) ?? 0))
        }
        var latencies: [Double] = []
        var seen: [Int: LogCheckpoint] = [:]
        for message in received where message.type == "change" {
            let parts = message.cursor.split(separator: "-")
            guard parts.count == 2, let t = UInt64(parts[0]), let p = Int64(parts[1]) else { continue }
            let cursor = LogCheckpoint(transactionID: t, position: p)
            let stream = "otx:" + Self.originalTransactionID(user: message.stream)
            let after = seen[message.stream] ?? .start
            seen[message.stream] = cursor
            guard let newest = (events[stream] ?? []).filter({ $0.checkpoint > after && $0.checkpoint <= cursor }).max(by: { $0.checkpoint < $1.checkpoint })
            else { continue }
            latencies.append((message.arrival - newest.recorded) * 1000)
        }
        latencies.sort()
        func quantile(_ q: Double) -> Double { latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * q))] }
        return (quantile(0.5), quantile(0.99), latencies.count)
    }

    static func originalTransactionID(user index: Int) -> String { "\(4_000_000_000 + index)" }

    /// A purchase per user, then `renewals` renewals each a month later, in rounds (every user's purchase, then every
    /// user's first renewal, …), so that each notification changes its user's entitlement.
    private func writeBodies(_ names: [String], to path: String) throws {
        var text = ""
        for round in 0...renewals {
            for (index, user) in names.enumerated() {
                let original = Self.originalTransactionID(user: index)
                let id = round == 0 ? original : "\(original)\(round)"
                let purchase = AppStorePayloads.jan1 + Int64(round) * 30 * AppStorePayloads.day
                let transaction = AppStorePayloads.transaction(
                    id: id, original: original, purchase: "\(purchase)", expires: purchase + 31 * AppStorePayloads.day, token: user,
                    environment: "Production", signed: purchase + 1000)
                let payload = try signer.notification(type: round == 0 ? "SUBSCRIBED" : "DID_RENEW", subtype: round == 0 ? "INITIAL_BUY" : nil,
                                                      signed: purchase + 1000, transactionJSON: transaction, environment: "Production")
                text += #"{"signedPayload":""# + payload + "\"}\n"
            }
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}

/// Server-Sent Events streams over plain sockets, read by one thread with poll(2).
final class Streams: Sendable {
    struct Message: Sendable {
        var stream: Int
        var type: String
        var cursor: String
        /// Seconds since 1970.
        var arrival: Double
    }

    private let sockets: [Int32]
    private let running = Atomic<Bool>(true)
    private let messages = Mutex<[Message]>([])
    private let finished = Mutex<Bool>(false)

    private init(sockets: [Int32]) { self.sockets = sockets }

    /// Opens one stream per user and starts reading once every stream has sent its snapshot.
    static func open(_ users: [String], port: Int, key: String) async throws -> Streams {
        let sockets = try users.map { user in
            let fd = try connect(port: port)
            let request = "GET /v1/users/\(user)/live HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\nAccept: text/event-stream\r\n\r\n"
            _ = request.withCString { send(fd, $0, strlen($0), 0) }
            return fd
        }
        let streams = Streams(sockets: sockets)
        Thread.detachNewThread { streams.read() }
        let deadline = ContinuousClock.now + .seconds(120)
        while streams.messages.withLock({ Set($0.filter { $0.type == "snapshot" }.map(\.stream)).count }) < users.count {
            guard ContinuousClock.now < deadline else { throw ExternalTool.Failed(command: "live streams", output: "snapshots missing") }
            try await Task.sleep(for: .milliseconds(50))
        }
        return streams
    }

    /// Stops reading, closes the streams, and returns every message received.
    func stop() -> [Message] {
        running.store(false, ordering: .relaxed)
        while !finished.withLock({ $0 }) { usleep(10_000) }
        for fd in sockets { close(fd) }
        return messages.withLock { $0 }
    }

    /// Reads every stream as bytes (the reader shares the machine with the server it measures, so it stays cheap):
    /// a message ends at a blank line; its `id:` and `event:` lines are kept. The chunked encoding's size lines end
    /// in "\r\n" and match neither.
    private func read() {
        var pending = [[UInt8]](repeating: [], count: sockets.count)
        var polls = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let newline = UInt8(ascii: "\n")
        while running.load(ordering: .relaxed) {
            guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
            let now = Date().timeIntervalSince1970
            var arrived: [Message] = []
            for index in polls.indices where polls[index].revents & Int16(POLLIN) != 0 {
                let count = recv(polls[index].fd, &buffer, buffer.count, 0)
                guard count > 0 else {
                    polls[index].fd = -1
                    continue
                }
                pending[index] += buffer[0..<count]
                var start = 0
                var type = "", cursor = ""
                var lineStart = 0
                for offset in 0..<pending[index].count where pending[index][offset] == newline {
                    let line = pending[index][lineStart..<offset]
                    lineStart = offset + 1
                    if line.isEmpty {
                        if !type.isEmpty { arrived.append(Message(stream: index, type: type, cursor: cursor, arrival: now)) }
                        (type, cursor, start) = ("", "", offset + 1)
                    } else if line.starts(with: Self.eventPrefix) {
                        type = String(decoding: line.dropFirst(Self.eventPrefix.count), as: UTF8.self)
                    } else if line.starts(with: Self.idPrefix) {
                        cursor = String(decoding: line.dropFirst(Self.idPrefix.count), as: UTF8.self)
                    }
                }
                pending[index].removeFirst(start)
            }
            if !arrived.isEmpty { messages.withLock { $0 += arrived } }
        }
        finished.withLock { $0 = true }
    }

    private static let eventPrefix = Array("event: ".utf8)
    private static let idPrefix = Array("id: ".utf8)

    private static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw ExternalTool.Failed(command: "connect to 127.0.0.1:\(port)", output: "errno \(errno)") }
        return fd
    }
}

/// A receiver on loopback that acknowledges every POST to `path` and counts it: webhooks (`/hooks`), or an OTLP
/// trace export (`/v1/traces`, answered 204 as OTLP/HTTP allows).
final class Receiver: Sendable {
    let port: Int
    private let received = Atomic<Int>(0)
    private let task: Mutex<Task<Void, any Error>?> = Mutex(nil)

    var count: Int { received.load(ordering: .relaxed) }

    private init(port: Int) { self.port = port }

    static func start(path: String = "/hooks") async throws -> Receiver {
        let port = try EmbeddedCluster.freeLoopbackPort()
        let receiver = Receiver(port: port)
        let router = Router()
        router.post(RouterPath(path)) { request, _ -> Response in
            _ = try await request.body.collect(upTo: 64 << 20)
            receiver.received.add(1, ordering: .relaxed)
            return Response(status: .noContent)
        }
        let quiet = Logger(label: "bench.receiver", factory: { _ in SwiftLogNoOpLogHandler() })
        let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: quiet)
        let group = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: quiet))
        receiver.task.withLock { $0 = Task { try await group.run() } }
        return receiver
    }

    func stop() async {
        let running = task.withLock { $0 }
        running?.cancel()
        _ = try? await running?.value
    }
}
