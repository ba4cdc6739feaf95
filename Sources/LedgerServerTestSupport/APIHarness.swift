import AppStoreSamples
import AppStoreVerification
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWebSocket
import LedgerDomain
import LedgerPrivacy
import LedgerServer
import LedgerStore
import LedgerStoreTestSupport
import LedgerWebhooks
import Logging
import NIOCore
import PostgresClient
import PostgresTestSupport
import Synchronization
import UTCTime
import X509

/// A clock the tests move (cookie expiry, "now" of the per-user views).
package final class TestClock: Sendable {
    private let current: Mutex<Instant>
    package init(now: Instant = Instant(secondsSinceEpoch: 1_767_225_600 + 5 * 86_400)) { current = Mutex(now) }  // 2026-01-06
    package var now: Instant { current.withLock { $0 } }
    package func advance(seconds: Int64) { current.withLock { $0 = $0.adding(.seconds(seconds)) } }
}

/// The API on a fresh database, with App Store data signed by an in-process test PKI it trusts.
package struct APIHarness: Sendable {
    package static let adminToken = "test-admin-token"
    package let pool: PostgresPool
    package let signer: AppStoreTestSigner
    package let clock: TestClock
    package let api: LedgerAPI
    /// The installation's master key (operators' one-time-password secrets are sealed under it).
    package let masterKey: SymmetricKey
    /// The digest signing key the API signs erasure certificates with (one for every harness, like the master key).
    package static let digestKey = Curve25519.Signing.PrivateKey()
    /// The users' pseudonyms (the log and read models name users by them).
    package var identities: IdentityStore { api.identities }

    /// `readYourWrites` is off by default: most tests apply projections themselves (`project()`), deterministically.
    /// `requestTimeout` is only a hang bound here: on a loaded two-core run a request that waits for the commit horizon
    /// (invoices catch their read model up first, for up to a minute) took over 30 s; tests of the timeout set their own.
    /// `extraRoots` are trusted besides the signer's (e.g. a test PKI whose leaf has expired). `database`: an existing
    /// database (opened, so migrated) instead of a fresh one; `now`: where the clock starts. The status cache answers
    /// nothing unless a test runs its loop or looks (`StatusCacheTests`).
    package static func make(
        maxBodyBytes: Int = 1 << 20, readYourWrites: Duration = .zero, requestTimeout: Duration = .seconds(300),
        extraRoots: [Certificate] = [], database: String? = nil, now: Instant? = nil,
        webhooks: WebhookSettings = .loopback, live: LiveHub.Settings = .testing, statusCache: StatusCache.Settings = .init()
    ) async throws -> APIHarness {
        let url =
            if let database {
                database
            } else if let citus = CitusTestCluster.directory {
                try await CitusTestCluster.makeDistributedDatabase(prefix: "api", in: citus)
            } else {
                try await TestDatabase.makeDatabase(prefix: "api")
            }
        let pool = try await LedgerDatabase.open(connectionString: url, migrations: try SchemaLocation.migrations())
        let signer = try AppStoreTestSigner()
        let clock = now.map { TestClock(now: $0) } ?? TestClock()
        let masterKey = TestMasterKey.key
        var configuration = LedgerAPI.Configuration(
            adminToken: adminToken, roots: TrustRoots(certificates: signer.roots + extraRoots), maxBodyBytes: maxBodyBytes,
            requestTimeout: requestTimeout, readYourWrites: readYourWrites, clock: LedgerClock { clock.now }, webhooks: webhooks,
            live: live)
        configuration.statusCache = statusCache
        configuration.masterKey = MasterKeySource(key: masterKey)
        configuration.digestKey = digestKey
        let api = try await LedgerAPI.make(pool: pool, configuration: configuration, logger: .init(label: "test"))
        return APIHarness(pool: pool, signer: signer, clock: clock, api: api, masterKey: masterKey)
    }

    /// The application as `ledger serve` builds it (HTTP/1.1 with the WebSocket upgrade), on the harness's API.
    package var application: some ApplicationProtocol { application(logger: nil) }

    /// The same, logging to `logger` (a test that reads what the server logs); nil: Hummingbird's default.
    package func application(logger: Logger?) -> some ApplicationProtocol {
        let router = LedgerApplication.makeRouter(
            readiness: ReadinessCheck(pool: pool, migrations: (try? SchemaLocation.migrations()) ?? []), api: api)
        return Application(router: router, server: LedgerApplication.server(router: router), logger: logger)
    }

    /// Runs `body` against the router in-process, then closes the pool. `logger`: as `application(logger:)`.
    package func test(logger: Logger? = nil, _ body: @escaping @Sendable (APIClient) async throws -> Void) async throws {
        let harness = self
        try await application(logger: logger).test(.router) { client in try await body(APIClient(client: client, harness: harness)) }
        await pool.shutdown()
    }

    /// Applies every recorded event to the projections (the server does this continuously in the background).
    package func project() async throws {
        try await ProjectionWorker(pool: pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
    }
}

/// One answer, with its body parsed as JSON when it is JSON.
package struct APIResponse: Sendable {
    package let status: HTTPResponse.Status
    package let headers: HTTPFields
    package let text: String

    package init(status: HTTPResponse.Status, headers: HTTPFields, text: String) {
        self.status = status
        self.headers = headers
        self.text = text
    }

    package var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:] }
    package var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    package var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }
    package func string(_ key: String) -> String? { json[key] as? String }
    package func int(_ key: String) -> Int? { json[key] as? Int }
    package func array(_ key: String) -> [[String: Any]] { json[key] as? [[String: Any]] ?? [] }
}

/// A setup step of the harness got an answer it cannot go on with.
package enum HarnessError: Error, Equatable {
    case unexpectedAnswer(String)
}

/// Requests against the API, with helpers that set up tenants the way an operator would (through the API).
package struct APIClient: Sendable {
    private enum Transport: Sendable {
        case testClient(any TestClientProtocol)
        case loopback(LoopbackTransport)
    }

    private let transport: Transport
    package let harness: APIHarness

    package init(client: any TestClientProtocol, harness: APIHarness) {
        self.transport = .testClient(client)
        self.harness = harness
    }

    /// For a server run `.live`: requests go over loopback with a bound of their own (see `LoopbackTransport`).
    package init(live client: any TestClientProtocol, harness: APIHarness) throws {
        guard let port = client.port else { throw HarnessError.unexpectedAnswer("the live test client has no port") }
        self.transport = .loopback(LoopbackTransport(port: port))
        self.harness = harness
    }

    @discardableResult
    package func send(
        _ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = [:], json: String? = nil,
        bytes: [UInt8]? = nil
    ) async throws -> APIResponse {
        var fields = headers
        var body: ByteBuffer? = nil
        if let json {
            if fields[.contentType] == nil { fields[.contentType] = "application/json" }
            body = ByteBuffer(string: json)
        } else if let bytes {
            body = ByteBuffer(bytes: bytes)
        }
        switch transport {
        case .testClient(let client):
            let response = try await client.execute(uri: uri, method: method, headers: fields, body: body)
            return APIResponse(status: response.status, headers: response.headers, text: String(buffer: response.body))
        case .loopback(let loopback):
            return try await loopback.execute(uri: uri, method: method, headers: fields, body: body)
        }
    }

    package static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }
    package static var admin: HTTPFields { bearer(APIHarness.adminToken) }

    /// An account with one app and both kinds of key.
    package struct Tenant: Sendable {
        package var accountID: String
        package var appID: String
        package var secretKey: String
        package var publicKey: String
        package var secret: HTTPFields { APIClient.bearer(secretKey) }
        package var publicHeaders: HTTPFields { [HTTPField.Name("APIKey")!: publicKey] }
    }

    package func tenant(
        bundleID: String = "com.example.app", transferPolicy: String = "transfer", allowXcode: Bool = false,
        tokenPolicy: String = "ignore"
    ) async throws -> Tenant {
        let account = try await send(.post, "/v1/admin/accounts", headers: Self.admin, json: #"{"name":"Example Inc."}"#)
        let accountID = try Self.require(account.string("id"), account)
        let app = try await send(
            .post, "/v1/admin/apps", headers: Self.admin,
            json: """
                {"name":"Example","account_id":"\(accountID)","bundle_id":"\(bundleID)","apple_app_id":1234,
                 "transfer_policy":"\(transferPolicy)","allow_xcode":\(allowXcode),"app_account_token_policy":"\(tokenPolicy)"}
                """)
        let appID = try Self.require(app.string("id"), app)
        let secret = try await send(.post, "/v1/admin/apps/\(appID)/keys", headers: Self.admin, json: #"{"kind":"secret"}"#)
        let publicKey = try await send(.post, "/v1/admin/apps/\(appID)/keys", headers: Self.admin, json: #"{"kind":"public"}"#)
        return Tenant(
            accountID: accountID, appID: appID, secretKey: try Self.require(secret.string("key"), secret),
            publicKey: try Self.require(publicKey.string("key"), publicKey))
    }

    /// Uploads a receipt with the public key; returns the answer and the `Cookie` header its `Set-Cookie`s make.
    package func uploadReceipt(_ tenant: Tenant, user: String?, receipt: String) async throws -> (APIResponse, cookie: String) {
        let member = user.map { #""user-id":"\#($0)","# } ?? ""
        let response = try await send(.post, "/uploadReceipt", headers: tenant.publicHeaders, json: #"{\#(member)"data":"\#(receipt)"}"#)
        let cookie = response.headers[values: .setCookie].compactMap { $0.split(separator: ";").first.map(String.init) }
            .joined(separator: "; ")
        return (response, cookie)
    }

    package func productsStatus(_ headers: HTTPFields) async throws -> APIResponse {
        try await send(.get, "/productsStatus", headers: headers)
    }

    /// The value a setup step needs, or the answer that lacked it.
    static func require(_ value: String?, _ response: APIResponse) throws(HarnessError) -> String {
        guard let value else { throw .unexpectedAnswer("\(response.status) \(response.text)") }
        return value
    }
}

extension HTTPFields {
    /// These fields plus a `Cookie` header.
    package func with(cookie: String) -> HTTPFields {
        var copy = self
        copy[.cookie] = cookie
        return copy
    }
}

extension WebhookSettings {
    /// For tests: receivers on loopback allowed, retries after 50 ms doubling to 1 s, leases of 2 s, idle polls of 100 ms.
    package static var loopback: WebhookSettings {
        var settings = WebhookSettings()
        settings.allowPrivateAddresses = true
        settings.schedule = RetrySchedule(first: .milliseconds(50), cap: .seconds(1), window: .seconds(3600))
        settings.leaseDuration = .seconds(2)
        settings.pollInterval = .milliseconds(100)
        return settings
    }
}

extension LiveHub.Settings {
    /// For tests: rounds every 50 ms, a heartbeat every second.
    package static var testing: LiveHub.Settings {
        var settings = LiveHub.Settings()
        settings.pollInterval = .milliseconds(50)
        settings.heartbeat = .seconds(1)
        return settings
    }
}
