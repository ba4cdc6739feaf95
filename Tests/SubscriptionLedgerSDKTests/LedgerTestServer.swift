import AppStoreSamples
import EmbeddedPostgres
import Foundation
import Glibc
import PostgresClient
import PostgresTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real `ledger serve` on a database of the test-owned PostgreSQL cluster (so its data outlives a restart), on a
/// fixed loopback port, which a test can stop and start again.
actor LedgerTestServer {
    static let adminToken = "sdk-admin-token"
    nonisolated let port: Int
    nonisolated let databaseURL: String
    nonisolated let masterKeyFile: String?
    let logPath: String
    private var process: Process?

    nonisolated var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// On the run's shared cluster: the `.faults` one is for crash and tamper tests whose open transactions hold back
    /// the commit horizon that this server's projections wait for (its views then lag for minutes). A SIGKILLed
    /// `ledger serve` leaves no transaction open: the kernel closes its connections and PostgreSQL rolls them back.
    /// `masterKeyFile`: the server's `LEDGER_MASTER_KEY_FILE` (a test that rotates it); else the shared default.
    static func started(masterKeyFile: String? = nil) async throws -> LedgerTestServer {
        let server = try LedgerTestServer(databaseURL: try await TestDatabase.makeDatabase(prefix: "sdk"), masterKeyFile: masterKeyFile)
        try await server.start()
        return server
    }

    init(databaseURL: String, masterKeyFile: String? = nil) throws {
        port = try EmbeddedCluster.freeLoopbackPort()
        self.databaseURL = databaseURL
        self.masterKeyFile = masterKeyFile
        logPath = TestScratch.path("sdk-serve.log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    }

    /// Spawns the server and waits (up to `timeout`) until `/ready` answers 200.
    func start(timeout: Duration = .seconds(60)) async throws {
        let process = Process()
        process.executableURL = LedgerBinary.url
        process.arguments = ["serve", "--port", "\(port)", "--pool-size", "4"]
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = databaseURL
        environment["LEDGER_ADMIN_TOKEN"] = Self.adminToken
        environment["LEDGER_LOG_LEVEL"] = "warning"
        if let masterKeyFile { environment["LEDGER_MASTER_KEY_FILE"] = masterKeyFile }
        process.environment = environment
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw TestServerError.exited(logTail()) }
            if let answer = try? await HTTP.send("GET", baseURL.appendingPathComponent("ready")), answer.status == 200 { return }
            try await Task.sleep(for: .milliseconds(25))  // polling readiness of a child process: no event to wait on
        }
        throw TestServerError.notReady(logTail())
    }

    /// SIGKILL and wait: the server is gone at once, as when a device loses the network mid-upload. The wait ends on
    /// the exit itself, within a bound (a server that outlived SIGKILL would hold its port against a restart).
    func kill() async {
        guard let process else { return }
        if await !ChildProcess.kill(process, timeout: .seconds(30)) {
            Issue.record("ledger serve (pid \(process.processIdentifier)) had not exited 30 s after SIGKILL")
        }
    }

    /// Events of the purchase stream of `originalTransactionID` in the log itself: what was recorded, whether or not
    /// the read models (which a busy server may answer before) include it yet.
    nonisolated func recordedEvents(originalTransactionID: String) async throws -> Int64 {
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: databaseURL), size: 1)
        defer { Task { await pool.shutdown() } }
        return try await pool.query("SELECT count(*) FROM ledger.events WHERE stream_id = \("otx:" + originalTransactionID)")
            .first?.decode(Int64.self, at: 0) ?? 0
    }

    func logTail() -> String {
        String(((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").suffix(3000))
    }
}

enum TestServerError: Error {
    case exited(String)
    case notReady(String)
}

/// Plain HTTP for the tests' own calls (admin API, notifications): not the SDK's client.
enum HTTP {
    struct Answer {
        var status: Int
        var data: Data
        var headers: [String: String] = [:]
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:] }
        var text: String { String(decoding: data, as: UTF8.self) }
    }

    static func send(_ method: String, _ url: URL, headers: [String: String] = [:], body: String? = nil) async throws -> Answer {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        request.timeoutInterval = 30
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        let headers = (http?.allHeaderFields ?? [:]).reduce(into: [String: String]()) { headers, field in
            if let name = field.key as? String, let value = field.value as? String { headers[name.lowercased()] = value }
        }
        return Answer(status: http?.statusCode ?? 0, data: data, headers: headers)
    }
}

/// An account with one app (Xcode data allowed, appAccountToken = user id), its keys and catalog, made through the
/// admin API as an operator would.
struct SDKTenant: Sendable {
    let baseURL: URL
    let appID: String
    let secretKey: String
    let publicKey: String
    static let bundleID = "com.example.app"

    static func create(on server: LedgerTestServer, transferPolicy: String = "transfer") async throws -> SDKTenant {
        let base = server.baseURL
        let admin = ["Authorization": "Bearer \(LedgerTestServer.adminToken)"]
        let account = try await HTTP.send("POST", base.appendingPathComponent("v1/admin/accounts"), headers: admin, body: #"{"name":"SDK Inc."}"#)
        let accountID = try #require(account.json["id"] as? String, "\(account.text)")
        let app = try await HTTP.send(
            "POST", base.appendingPathComponent("v1/admin/apps"), headers: admin,
            body: """
                {"name":"SDK","account_id":"\(accountID)","bundle_id":"\(bundleID)","apple_app_id":1234,
                 "transfer_policy":"\(transferPolicy)","allow_xcode":true,"app_account_token_policy":"token_is_app_user_id"}
                """)
        let appID = try #require(app.json["id"] as? String, "\(app.text)")
        let keys = base.appendingPathComponent("v1/admin/apps/\(appID)/keys")
        let secret = try await HTTP.send("POST", keys, headers: admin, body: #"{"kind":"secret"}"#)
        let publicKey = try await HTTP.send("POST", keys, headers: admin, body: #"{"kind":"public"}"#)
        let tenant = SDKTenant(
            baseURL: base, appID: appID, secretKey: try #require(secret.json["key"] as? String),
            publicKey: try #require(publicKey.json["key"] as? String))
        for (product, body) in [
            ("monthly", #"{"type":"auto_renewable","subscription_group":"main","entitlements":["pro"]}"#),
            ("lifetime", #"{"type":"non_consumable","entitlements":["pro"]}"#), ("coins", #"{"type":"consumable"}"#),
            ("beta_pass", #"{"type":"non_renewing","entitlements":["beta"]}"#)
        ] {
            let answer = try await HTTP.send(
                "PUT", base.appendingPathComponent("v1/apps/\(appID)/products/\(product)"),
                headers: ["Authorization": "Bearer \(tenant.secretKey)"], body: body)
            #expect(answer.status == 200 || answer.status == 201, "\(answer.text)")
        }
        return tenant
    }

    /// Gives `user` a support grant of `entitlement` until `expires` (the secret key, as a backend would).
    func grant(_ entitlement: String, to user: String, until expires: Date) async throws {
        let answer = try await HTTP.send(
            "POST", baseURL.appendingPathComponent("v1/users/\(user)/grants"), headers: ["Authorization": "Bearer \(secretKey)"],
            body: #"{"entitlement_id":"\#(entitlement)","expires_at":"\#(ISO8601DateFormatter().string(from: expires))","reason":"test"}"#)
        #expect(answer.status == 201, "\(answer.text)")
    }

    /// The user as the backend reads them (the secret key).
    func read(_ user: String, headers: [String: String] = [:]) async throws -> HTTP.Answer {
        try await HTTP.send(
            "GET", baseURL.appendingPathComponent("v1/users/\(user)"), headers: headers.merging(["Authorization": "Bearer \(secretKey)"]) { $1 })
    }

    /// Posts an Xcode-signed App Store notification of a one-time charge whose appAccountToken names `user`.
    func notifyOneTimeCharge(user: String, product: String, transactionID: String, signer: XcodeSigner) async throws -> HTTP.Answer {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let transaction = AppStorePayloads.transaction(
            id: transactionID, original: transactionID, product: product, type: "Non-Consumable", purchase: "\(now - 1000)",
            originalPurchase: now - 1000, expires: nil, token: user, environment: "Xcode", signed: now, bundleID: Self.bundleID)
        let payload = try signer.sign(
            AppStorePayloads.notification(
                type: "ONE_TIME_CHARGE", uuid: UUID().uuidString.lowercased(), signed: now, environment: "Xcode", bundleID: Self.bundleID,
                signedTransaction: try signer.sign(transaction)))
        return try await HTTP.send(
            "POST", baseURL.appendingPathComponent("v1/apps/\(appID)/notifications"),
            body: #"{"signedPayload":"\#(payload)"}"#)
    }
}
