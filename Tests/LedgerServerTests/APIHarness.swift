import AppStoreSamples
import AppStoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LedgerServer
import LedgerStore
import Logging
import NIOCore
import PostgresClient
import PostgresTestSupport
import Synchronization
import Testing

/// A clock the tests move (cookie expiry, "now" of the per-user views).
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_767_225_600 + 5 * 86_400)) // 2026-01-06
    var now: Date { current.withLock { $0 } }
    func advance(seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// The API on a fresh database, with App Store data signed by an in-process test PKI it trusts.
struct APIHarness: Sendable {
    static let adminToken = "test-admin-token"
    let pool: PostgresPool
    let signer: AppStoreTestSigner
    let clock: TestClock
    let api: LedgerAPI

    /// `readYourWrites` is off by default: most tests apply projections themselves (`project()`), deterministically.
    static func make(maxBodyBytes: Int = 1 << 20, readYourWrites: Duration = .zero, requestTimeout: Duration = .seconds(30))
        async throws -> APIHarness {
        let pool = try await LedgerDatabase.open(connectionString: try await TestDatabase.makeDatabase(prefix: "api"),
                                                 migrations: try SchemaLocation.migrations())
        let signer = try AppStoreTestSigner()
        let clock = TestClock()
        let api = try await LedgerAPI.make(pool: pool, configuration: LedgerAPI.Configuration(
            adminToken: adminToken, roots: TrustRoots(certificates: signer.roots), maxBodyBytes: maxBodyBytes,
            requestTimeout: requestTimeout, readYourWrites: readYourWrites, now: { clock.now }), logger: .init(label: "test"))
        return APIHarness(pool: pool, signer: signer, clock: clock, api: api)
    }

    var application: some ApplicationProtocol {
        Application(router: LedgerApplication.makeRouter(
            readiness: ReadinessCheck(pool: pool, migrations: (try? SchemaLocation.migrations()) ?? []), api: api))
    }

    /// Runs `body` against the router in-process, then closes the pool.
    func test(_ body: @escaping @Sendable (APIClient) async throws -> Void) async throws {
        let harness = self
        try await application.test(.router) { client in try await body(APIClient(client: client, harness: harness)) }
        await pool.shutdown()
    }

    /// Applies every recorded event to the projections (the server does this continuously in the background).
    func project() async throws {
        try await ProjectionWorker(pool: pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
    }
}

/// One answer, with its body parsed as JSON when it is JSON.
struct APIResponse: Sendable {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let text: String

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:] }
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }
    func string(_ key: String) -> String? { json[key] as? String }
    func int(_ key: String) -> Int? { json[key] as? Int }
    func array(_ key: String) -> [[String: Any]] { json[key] as? [[String: Any]] ?? [] }
}

/// Requests against the API, with helpers that set up tenants the way an operator would (through the API).
struct APIClient: Sendable {
    let client: any TestClientProtocol
    let harness: APIHarness

    @discardableResult
    func send(_ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = [:], json: String? = nil,
              bytes: [UInt8]? = nil) async throws -> APIResponse {
        var fields = headers
        var body: ByteBuffer? = nil
        if let json {
            if fields[.contentType] == nil { fields[.contentType] = "application/json" }
            body = ByteBuffer(string: json)
        } else if let bytes {
            body = ByteBuffer(bytes: bytes)
        }
        let response = try await client.execute(uri: uri, method: method, headers: fields, body: body)
        return APIResponse(status: response.status, headers: response.headers, text: String(buffer: response.body))
    }

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }
    static var admin: HTTPFields { bearer(APIHarness.adminToken) }

    /// An account with one app and both kinds of key.
    struct Tenant: Sendable {
        var accountID: String
        var appID: String
        var secretKey: String
        var publicKey: String
        var secret: HTTPFields { APIClient.bearer(secretKey) }
        var publicHeaders: HTTPFields { [HTTPField.Name("APIKey")!: publicKey] }
    }

    func tenant(bundleID: String = "com.example.app", transferPolicy: String = "transfer", allowXcode: Bool = false,
                tokenPolicy: String = "ignore") async throws -> Tenant {
        let account = try await send(.post, "/v1/admin/accounts", headers: Self.admin, json: #"{"name":"Example Inc."}"#)
        let accountID = try #require(account.string("id"))
        let app = try await send(.post, "/v1/admin/apps", headers: Self.admin, json: """
            {"name":"Example","account_id":"\(accountID)","bundle_id":"\(bundleID)","apple_app_id":1234,
             "transfer_policy":"\(transferPolicy)","allow_xcode":\(allowXcode),"app_account_token_policy":"\(tokenPolicy)"}
            """)
        let appID = try #require(app.string("id"), "\(app.text)")
        let secret = try await send(.post, "/v1/admin/apps/\(appID)/keys", headers: Self.admin, json: #"{"kind":"secret"}"#)
        let publicKey = try await send(.post, "/v1/admin/apps/\(appID)/keys", headers: Self.admin, json: #"{"kind":"public"}"#)
        return Tenant(accountID: accountID, appID: appID, secretKey: try #require(secret.string("key")),
                      publicKey: try #require(publicKey.string("key")))
    }

    /// Uploads a receipt with the public key; returns the answer and the `Cookie` header its `Set-Cookie`s make.
    func uploadReceipt(_ tenant: Tenant, user: String?, receipt: String) async throws -> (APIResponse, cookie: String) {
        let member = user.map { #""user-id":"\#($0)","# } ?? ""
        let response = try await send(.post, "/uploadReceipt", headers: tenant.publicHeaders, json: #"{\#(member)"data":"\#(receipt)"}"#)
        let cookie = response.headers[values: .setCookie].compactMap { $0.split(separator: ";").first.map(String.init) }
            .joined(separator: "; ")
        return (response, cookie)
    }

    func productsStatus(_ headers: HTTPFields) async throws -> APIResponse {
        try await send(.get, "/productsStatus", headers: headers)
    }
}

extension HTTPFields {
    /// These fields plus a `Cookie` header.
    func with(cookie: String) -> HTTPFields {
        var copy = self
        copy[.cookie] = cookie
        return copy
    }
}
