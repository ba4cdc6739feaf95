import AppStoreSamples
import AppStoreServerAPI
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A fake App Store Server API on 127.0.0.1 for the tests.
///
/// It holds a scripted history (customers' transactions, subscriptions' latest renewal info, notifications sent), signed
/// with the test PKI as Apple signs its answers, and answers the client's calls as Apple documents them: history pages by
/// revision, notification history pages by pagination token. Every request's token is checked (signature with the
/// expected public key, `kid`, `iss`, `aud`, `bid`, `exp`); a bad one is answered 401 with an empty body, as Apple does.
/// With `failureRate`, a seeded share of the authenticated requests is answered 429 with `Retry-After` or a retryable
/// 5xx instead. Every call is recorded.
package final class FakeAppStoreServer: Sendable {
    /// Who may call: the key and app the tokens must name.
    package struct Credentials: Sendable {
        package var keyID: String
        package var issuerID: String
        package var bundleID: String
        package var publicKey: P256.Signing.PublicKey

        package init(keyID: String, issuerID: String, bundleID: String, publicKey: P256.Signing.PublicKey) {
            self.keyID = keyID
            self.issuerID = issuerID
            self.bundleID = bundleID
            self.publicKey = publicKey
        }
    }

    /// One request as received, and how it was answered.
    package struct Call: Sendable {
        package var method: String
        package var path: String
        package var query: String
        package var body: String
        package var status: Int
    }

    /// A scripted transaction: its ids, its product type and the compact JWS the fake answers with.
    package struct Transaction: Sendable {
        package var transactionID: String
        package var originalTransactionID: String
        package var signed: String
        /// Whether the transaction carries a revocation date (Get Refund History lists it).
        package var refunded: Bool
    }

    struct Notification {
        var signedDate: Int64
        var signedPayload: String
    }

    private struct State {
        /// Each customer's transactions in revision order (Apple's history is per customer and app).
        var customers: [[Transaction]] = []
        /// Original transaction id → the latest transaction and its renewal info for a signing time (Get All Subscription
        /// Statuses signs the renewal info at each call, as Apple does).
        var statuses: [String: (transaction: String, renewalInfo: @Sendable (Int64) -> String)] = [:]
        var notifications: [Notification] = []
        var calls: [Call] = []
        var injected = 0
        var random: SeededRandom
        var failureRate: Double
        var consumption: [(transactionID: String, body: String)] = []
        /// Transaction ids whose consumption answers are refused as Apple refuses an unknown transaction (404, 4040010).
        var unknownToApple: Set<String> = []
        var running: Task<Void, any Error>?
        var group: ServiceGroup?
    }

    package let credentials: Credentials
    package let signer: AppStoreTestSigner
    package let pageSize: Int
    package let retryAfterSeconds: Int
    private let state: Mutex<State>
    private let portValue = Mutex(0)

    package init(
        credentials: Credentials, signer: AppStoreTestSigner, pageSize: Int = 20, failureRate: Double = 0, seed: UInt64 = 1,
        retryAfterSeconds: Int = 1
    ) {
        self.credentials = credentials
        self.signer = signer
        self.pageSize = pageSize
        self.retryAfterSeconds = retryAfterSeconds
        self.state = Mutex(State(random: SeededRandom(seed: seed), failureRate: failureRate))
    }

    package var port: Int { portValue.withLock { $0 } }
    package var baseURL: String { "http://127.0.0.1:\(port)" }
    package var calls: [Call] { state.withLock { $0.calls } }
    /// How many answers were injected failures (429 or 5xx).
    package var injectedFailures: Int { state.withLock { $0.injected } }
    package var consumptionAnswers: [(transactionID: String, body: String)] { state.withLock { $0.consumption } }

    package func setFailureRate(_ rate: Double) { state.withLock { $0.failureRate = rate } }

    /// Consumption answers about `transactionID` are refused from now on, as Apple refuses a transaction it does not know.
    package func refuseConsumptionAnswers(transactionID: String) { _ = state.withLock { $0.unknownToApple.insert(transactionID) } }

    // MARK: Script

    /// Adds a customer whose history is `transactions` (payload JSON, signed here), in revision order.
    package func addCustomer(_ transactions: [(transactionID: String, originalTransactionID: String, json: String)]) throws {
        let signed = try transactions.map {
            Transaction(
                transactionID: $0.transactionID, originalTransactionID: $0.originalTransactionID,
                signed: try signer.sign($0.json), refunded: $0.json.contains("\"revocationDate\""))
        }
        state.withLock { $0.customers.append(signed) }
    }

    /// The latest transaction of a subscription and its renewal info JSON for a signing time (epoch ms), for Get All
    /// Subscription Statuses.
    package func setStatus(
        originalTransactionID: String, transactionJSON: String,
        renewalInfoJSON: @escaping @Sendable (_ signedDate: Int64) -> String
    ) throws {
        let signed = try signer.sign(transactionJSON)
        state.withLock { $0.statuses[originalTransactionID] = (signed, renewalInfoJSON) }
    }

    /// A notification Apple sent (delivered or not) at `signedDate` (epoch ms).
    package func addNotification(signedDate: Int64, signedPayload: String) {
        state.withLock { $0.notifications.append(Notification(signedDate: signedDate, signedPayload: signedPayload)) }
    }

    /// Every transaction held, in order.
    package var transactions: [Transaction] { state.withLock { $0.customers.flatMap { $0 } } }

    // MARK: Serving

    package func start() async throws {
        let router = Router()
        router.add(middleware: Gate(server: self))
        router.get("/inApps/v2/history/{id}") { [self] request, context in try history(request, id: try context.parameters.require("id")) }
        router.get("/inApps/v1/subscriptions/{id}") { [self] _, context in try statuses(id: try context.parameters.require("id")) }
        router.post("/inApps/v1/notifications/history") { [self] request, _ in try await notificationHistory(request) }
        router.post("/inApps/v1/notifications/test") { _, _ in try FakeAppStoreServer.json(["testNotificationToken": "fake-test-token"]) }
        router.get("/inApps/v1/notifications/test/{token}") { [self] _, context in
            let token = try context.parameters.require("token")
            guard token == "fake-test-token" else { return FakeAppStoreServer.error(404, 4_040_012, "Test notification not found.") }
            let payload = try signer.notification(type: "TEST", signed: 1_767_225_600_000, transactionJSON: nil, bundleID: credentials.bundleID)
            return try FakeAppStoreServer.json(["signedPayload": payload])
        }
        // Order "MQ2X7Y" is the first customer's first purchase; any other order id is invalid.
        router.get("/inApps/v1/lookup/{order}") { [self] _, context in
            let first = try context.parameters.require("order") == "MQ2X7Y" ? state.withLock { $0.customers.first?.first } : nil
            return try FakeAppStoreServer.json(OrderLookupBody(status: first == nil ? 1 : 0, signedTransactions: first.map { [$0.signed] } ?? []))
        }
        // The refunded transactions of the customer, in one page.
        router.get("/inApps/v2/refund/lookup/{id}") { [self] _, context in
            let id = try context.parameters.require("id")
            guard let customer = state.withLock({ $0.customers.first { $0.contains { $0.transactionID == id } } }) else {
                return FakeAppStoreServer.error(404, 4_040_010, "Transaction id not found.")
            }
            let refunded = customer.filter(\.refunded).map(\.signed)
            return try FakeAppStoreServer.json(RefundBody(signedTransactions: refunded, revision: "r\(refunded.count)", hasMore: false))
        }
        // Send Consumption Information v2 only (the V1 path answers 404, as any unknown path): a body Apple would refuse
        // is answered 400, so a test that reaches 202 sent what Apple takes.
        router.put("/inApps/v2/transactions/consumption/{id}") { [self] request, context in
            let id = try context.parameters.require("id")
            let body = try await request.body.collect(upTo: 1 << 20)
            if let problem = Self.consumptionBodyProblem(Data(body.readableBytesView)) { return Self.error(400, 4_000_000, problem) }
            guard !state.withLock({ $0.unknownToApple.contains(id) }) else { return Self.error(404, 4_040_010, "Transaction id not found.") }
            state.withLock { $0.consumption.append((id, String(buffer: body))) }
            return Response(status: .accepted)
        }
        let server = try await TestServer.start(router, label: "test.fake-appstore")
        state.withLock {
            $0.running = server.running
            $0.group = server.group
        }
        portValue.withLock { $0 = server.port }
    }

    package func stop() async {
        let (group, running) = state.withLock { ($0.group, $0.running) }
        await stopTestServer(group, running: running)
    }

    // MARK: Answers

    func history(_ request: Request, id: String) throws -> Response {
        guard let customer = state.withLock({ $0.customers.first { $0.contains { $0.transactionID == id } } }) else {
            return Self.error(404, 4_040_010, "Transaction id not found.")
        }
        let query = request.uri.queryParameters
        guard query["sort"].map(String.init) ?? "ASCENDING" == "ASCENDING" else { return Self.error(400, 4_000_000, "sort") }
        var offset = 0
        if let revision = query["revision"] {
            guard revision.hasPrefix("rev-"), let value = Int(revision.dropFirst(4)), (0...customer.count).contains(value) else {
                return Self.error(400, 4_000_005, "Invalid revision.")
            }
            offset = value
        }
        let end = min(offset + pageSize, customer.count)
        return try Self.json(
            HistoryBody(
                revision: "rev-\(end)", hasMore: end < customer.count, bundleId: credentials.bundleID, appAppleId: 1234,
                environment: "Sandbox", signedTransactions: customer[offset..<end].map(\.signed)))
    }

    func statuses(id: String) throws -> Response {
        let (customer, statuses) = state.withLock { state in
            (state.customers.first { $0.contains { $0.transactionID == id || $0.originalTransactionID == id } }, state.statuses)
        }
        guard let customer else { return Self.error(404, 4_040_010, "Transaction id not found.") }
        let originals = Set(customer.map(\.originalTransactionID)).sorted()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let last = try originals.compactMap { original in
            try statuses[original].map {
                LastBody(
                    status: 1, originalTransactionId: original, signedTransactionInfo: $0.transaction,
                    signedRenewalInfo: try signer.sign($0.renewalInfo(now)))
            }
        }
        return try Self.json(
            StatusesBody(
                environment: "Sandbox", bundleId: credentials.bundleID, appAppleId: 1234,
                data: [GroupBody(subscriptionGroupIdentifier: "21000001", lastTransactions: last)]))
    }

    func notificationHistory(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        guard let query = try? JSONDecoder().decode(HistoryQuery.self, from: Data(body.readableBytesView)) else {
            return Self.error(400, 4_000_000, "Invalid request.")
        }
        let matching = state.withLock { $0.notifications }.filter { $0.signedDate >= query.startDate && $0.signedDate < query.endDate }
            .sorted { $0.signedDate < $1.signedDate }
        var offset = 0
        if let token = request.uri.queryParameters["paginationToken"] {
            guard token.hasPrefix("page-"), let value = Int(token.dropFirst(5)), (0...matching.count).contains(value) else {
                return Self.error(400, 4_000_006, "Invalid pagination token.")
            }
            offset = value
        }
        let end = min(offset + pageSize, matching.count)
        return try Self.json(
            NotificationsBody(
                notificationHistory: matching[offset..<end].map { NotificationItem(signedPayload: $0.signedPayload) },
                hasMore: end < matching.count, paginationToken: end < matching.count ? "page-\(end)" : nil))
    }

    /// What Apple would refuse in a v2 `ConsumptionRequest` body; nil when it is valid.
    static func consumptionBodyProblem(_ data: Data) -> String? {
        struct Body: Decodable {
            var customerConsented: Bool
            var consumptionPercentage: Int?
            var deliveryStatus: String
            var refundPreference: String?
            var sampleContentProvided: Bool
        }
        guard let members = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return "The body is not a JSON object." }
        let known: Set = ["customerConsented", "consumptionPercentage", "deliveryStatus", "refundPreference", "sampleContentProvided"]
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) { return "Unknown field \(unknown)." }
        guard let body = try? JSONDecoder().decode(Body.self, from: data) else { return "A field is missing or of the wrong type." }
        guard body.customerConsented else { return "customerConsented must be true." }
        let deliveries: Set = ["DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER"]
        guard deliveries.contains(body.deliveryStatus) else { return "Invalid deliveryStatus." }
        if let percentage = body.consumptionPercentage, !(0...100_000).contains(percentage) { return "Invalid consumptionPercentage." }
        if let preference = body.refundPreference, !["DECLINE", "GRANT_FULL", "GRANT_PRORATED"].contains(preference) {
            return "Invalid refundPreference."
        }
        return nil
    }

    // MARK: Gate: tokens, injected failures, the call log

    struct Gate: RouterMiddleware {
        let server: FakeAppStoreServer

        func handle(
            _ request: Request, context: BasicRequestContext,
            next: (Request, BasicRequestContext) async throws -> Response
        ) async throws -> Response {
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            let answer: Response
            if !server.authorized(request.headers[.authorization]) {
                answer = Response(status: .unauthorized)
            } else if let failure = server.injectedFailure() {
                answer = failure
            } else {
                answer = try await next(request, context)
            }
            server.state.withLock {
                $0.calls.append(
                    Call(
                        method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
                        body: String(buffer: body), status: Int(answer.status.code)))
            }
            return answer
        }
    }

    /// Whether `authorization` is `Bearer <token>` with a token Apple would accept for the expected key and app.
    func authorized(_ authorization: String?) -> Bool {
        guard let authorization, authorization.hasPrefix("Bearer "),
            let (header, claims) = AppStoreJWT.verified(String(authorization.dropFirst(7)), publicKey: credentials.publicKey)
        else { return false }
        let now = Int64(Date().timeIntervalSince1970)
        return header.alg == "ES256" && header.typ == "JWT" && header.kid == credentials.keyID && claims.iss == credentials.issuerID
            && claims.aud == "appstoreconnect-v1" && claims.bid == credentials.bundleID && claims.exp > now && claims.iat <= now + 60
            && claims.exp - claims.iat <= 3600
    }

    func injectedFailure() -> Response? {
        state.withLock { state -> Response? in
            guard state.failureRate > 0, state.random.unit() < state.failureRate else { return nil }
            state.injected += 1
            switch state.random.next() % 3 {
            case 0:
                var response = Self.error(429, 4_290_000, "Rate limit exceeded.")
                response.headers[.retryAfter] = "\(retryAfterSeconds)"
                return response
            case 1: return Self.error(500, 5_000_001, "An unknown error occurred. Please try again.")
            default: return Self.error(503, nil, nil)
            }
        }
    }

    static func error(_ status: Int, _ code: Int?, _ message: String?) -> Response {
        var body = ByteBuffer()
        if let code { body.writeString(#"{"errorCode":\#(code),"errorMessage":"\#(message ?? "")"}"#) }
        return Response(status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
    }

    static func json(_ value: some Encodable) throws -> Response {
        let data = try JSONEncoder().encode(value)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
