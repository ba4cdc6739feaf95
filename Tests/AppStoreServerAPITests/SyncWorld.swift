import AppStoreSamples
import AppStoreServerAPI
import AppStoreServerTestSupport
import AppStoreSync
import AppStoreVerification
import Crypto
import Foundation
import LedgerDomain
import LedgerPrivacy
import LedgerRecording
import LedgerServerTestSupport
import LedgerStore
import LedgerTenancy
import Logging
import PostgresClient
import PostgresTestSupport
import X509

/// A ledger on a fresh database with one app, and a fake App Store Server holding a scripted history for it.
///
/// Customer A (appAccountToken `userA`): a subscription `1000` bought on Jan 1 and renewed daily 44 times (`1001`…`1044`)
/// and five consumables (`1100`…`1104`). Customer B (no token): a non-consumable `2000` and a subscription `2100` renewed
/// nine times, `2105` refunded. Get All Subscription Statuses knows the latest of both subscriptions.
struct SyncWorld: Sendable {
    static let jan1 = AppStorePayloads.jan1
    static let day = AppStorePayloads.day
    static let userA = "5f1c8f0e-2b7a-4c1e-9d3a-1b2c3d4e5f60"
    static let bundleID = "com.example.app"
    static let keyID = "2X9R4HXF34"
    static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"
    /// Retries fast (the fake's Retry-After of one second is honoured as it is: that bound is above it).
    static let retryPolicy = AppStoreRetryPolicy(
        maximumAttempts: 10, base: .milliseconds(5), maximumBackoff: .milliseconds(50),
        maximumRetryAfter: .seconds(2))

    let url: String
    let pool: PostgresPool
    let tenancy: TenancyStore
    let app: AppRecord
    let signer: AppStoreTestSigner
    let privateKey: P256.Signing.PrivateKey
    let fake: FakeAppStoreServer
    let recorder: LedgerRecorder
    let logger = Logger(label: "test.appstore-sync")
    /// One master key for every world and API on a database (a world reopened on its database reads its identities).
    static let masterKey = MasterKeySource(key: SymmetricKey(data: [UInt8](repeating: 7, count: 32)))
    /// A key file of it, for the `ledger` commands a test runs on a world's database (`--master-key`).
    static let masterKeyFile: String = {
        let path = TestScratch.path("syncworld-master-key")
        FileManager.default.createFile(
            atPath: path, contents: Data((String(repeating: "07", count: 32) + "\n").utf8), attributes: [.posixPermissions: 0o600])
        return path
    }()

    static func make(
        bundleID: String = bundleID, signer: AppStoreTestSigner? = nil, failureRate: Double = 0, seed: UInt64 = 42,
        pageSize: Int = 7, database: String? = nil
    ) async throws -> SyncWorld {
        let url = if let database { database } else { try await TestDatabase.makeDatabase(prefix: "appstore") }
        let pool = try await LedgerDatabase.open(connectionString: url, migrations: try SchemaLocation.migrations())
        let tenancy = TenancyStore(pool: pool)
        let account = try await tenancy.createAccount(name: "Acme")
        let app = try await tenancy.createApp(
            .init(
                accountID: account.id, name: "Notes", bundleID: bundleID, appleAppID: 1234,
                appAccountTokenPolicy: .tokenIsAppUserID))
        let signer = try signer ?? AppStoreTestSigner()
        let privateKey = P256.Signing.PrivateKey()
        let fake = FakeAppStoreServer(
            credentials: .init(keyID: keyID, issuerID: issuerID, bundleID: Self.bundleID, publicKey: privateKey.publicKey),
            signer: signer, pageSize: pageSize, failureRate: failureRate, seed: seed)
        try fake.addCustomer(customerA)
        try fake.addCustomer(customerB)
        try fake.setStatus(
            originalTransactionID: "1000", transactionJSON: subscription(1000, 44, token: userA),
            renewalInfoJSON: { AppStorePayloads.renewalInfo(original: "1000", signed: $0) })
        try fake.setStatus(
            originalTransactionID: "2100", transactionJSON: subscription(2100, 9, token: nil),
            renewalInfoJSON: { AppStorePayloads.renewalInfo(original: "2100", autoRenew: 0, signed: $0) })
        try await fake.start()
        let recorder = LedgerRecorder(
            store: EventStore(pool: pool), tenancy: tenancy, identities: IdentityStore(pool: pool, keys: Self.masterKey),
            roots: TrustRoots(certificates: signer.roots), clock: .system)
        return SyncWorld(
            url: url, pool: pool, tenancy: tenancy, app: app, signer: signer, privateKey: privateKey, fake: fake,
            recorder: recorder)
    }

    /// Applies every recorded event to the read models, as `serve`'s projection worker does.
    func project() async throws {
        try await ProjectionWorker(pool: pool, runners: ProjectionCatalog.runners()).catchUpThroughNow()
    }

    /// `ledger replay --check` and `ledger verify` after the projections caught up: both must find nothing wrong.
    func checkLogAndReadModels() async throws -> (replay: Int32, verify: Int32) {
        try await project()
        return (try await ledger(["replay", "--check", "--database-url", url]), try await ledger(["verify", "--database-url", url]))
    }

    func close() async {
        await fake.stop()
        await pool.shutdown()
    }

    /// A client with the app's key (or `key`), its bundle id (or `bundleID`), at the fake.
    func client(privateKey: P256.Signing.PrivateKey? = nil, bundleID: String? = nil) throws -> AppStoreServerAPIClient {
        let key = AppStoreAPIKey(
            keyID: Self.keyID, issuerID: Self.issuerID, bundleID: bundleID ?? app.bundleID,
            privateKey: privateKey ?? self.privateKey)
        return try AppStoreServerAPIClient(key: key, baseURL: fake.baseURL, retryPolicy: Self.retryPolicy, logger: logger)
    }

    var backfill: AppStoreBackfill { AppStoreBackfill(recorder: recorder, logger: logger) }

    // MARK: The scripted history

    /// Transaction `original + index` of a daily subscription started on Jan 1.
    static func subscription(_ original: Int, _ index: Int, token: String?, revoked: Bool = false) -> String {
        let purchase = jan1 + Int64(index) * day
        return AppStorePayloads.transaction(
            id: "\(original + index)", original: "\(original)", purchase: "\(purchase)", originalPurchase: jan1, expires: purchase + day,
            reason: index == 0 ? "PURCHASE" : "RENEWAL", token: token, revocation: revoked ? purchase + day / 2 : nil,
            revocationReason: revoked ? 0 : nil, signed: purchase + 1000, bundleID: bundleID)
    }

    static func oneTime(_ id: Int, product: String, type: String, token: String?, at index: Int) -> String {
        let purchase = jan1 + Int64(index) * day + 500
        return AppStorePayloads.transaction(
            id: "\(id)", original: "\(id)", product: product, type: type, purchase: "\(purchase)",
            originalPurchase: purchase, expires: nil, token: token, signed: purchase + 1000, bundleID: bundleID)
    }

    static var customerA: [(transactionID: String, originalTransactionID: String, json: String)] {
        let renewals = (0...44).map { (transactionID: "\(1000 + $0)", originalTransactionID: "1000", json: subscription(1000, $0, token: userA)) }
        let coins = (0..<5).map {
            (
                transactionID: "\(1100 + $0)", originalTransactionID: "\(1100 + $0)",
                json: oneTime(1100 + $0, product: "coins", type: "Consumable", token: userA, at: $0 * 3)
            )
        }
        return renewals + coins
    }

    static var customerB: [(transactionID: String, originalTransactionID: String, json: String)] {
        let lifetime = [
            (
                transactionID: "2000", originalTransactionID: "2000",
                json: oneTime(2000, product: "lifetime", type: "Non-Consumable", token: nil, at: 2)
            )
        ]
        return lifetime
            + (0...9).map {
                (transactionID: "\(2100 + $0)", originalTransactionID: "2100", json: subscription(2100, $0, token: nil, revoked: $0 == 5))
            }
    }

    /// Apple's notification of transaction `1000 + index` of customer A: SUBSCRIBED for the first, DID_RENEW after.
    func notificationA(_ index: Int) throws -> String {
        let purchase = Self.jan1 + Int64(index) * Self.day
        return try signer.notification(
            type: index == 0 ? "SUBSCRIBED" : "DID_RENEW", subtype: index == 0 ? "INITIAL_BUY" : nil,
            uuid: Self.uuid(prefix: "00000000", index), signed: purchase + 2000,
            transactionJSON: Self.subscription(1000, index, token: Self.userA), bundleID: Self.bundleID)
    }

    /// A notification UUID: `prefix-0000-4000-8000-<index, 12 digits>`.
    static func uuid(prefix: String, _ index: Int) -> String {
        let digits = String(index)
        return "\(prefix)-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
    }

    func deliver(_ indices: some Sequence<Int>) async throws {
        for index in indices {
            _ = try await recorder.notification(app: app, signedPayload: try notificationA(index), metadata: EventMetadata(source: "test"))
        }
    }

    // MARK: Reading the log

    /// Every event of the app: idempotency key → (type, payload, metadata source), with every pseudonym revealed as the
    /// app user id it stands for.
    func events() async throws -> [String: (type: String, payload: String, source: String?)] {
        let rows = try await pool.query(
            """
            SELECT idempotency_key, event_type, payload::text, metadata->>'source' FROM ledger.events WHERE app_id = \(app.id)
            """)
        // Revealed: two worlds name the same users by different pseudonyms.
        let reveal = try await TestMasterKey.revealer(app: app.id, pool: pool, keys: Self.masterKey)
        var events: [String: (type: String, payload: String, source: String?)] = [:]
        for row in rows {
            events[reveal(try row.decode(String.self, at: 0))] = (
                try row.decode(String.self, at: 1), reveal(try row.decode(String.self, at: 2)),
                try row.decode(String?.self, at: 3)
            )
        }
        return events
    }
}
