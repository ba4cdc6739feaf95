import AppStoreSamples
import EmbeddedPostgres
import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

/// `LEDGER_READ_DATABASE_URL`: status reads go to a streaming replica, and read-your-writes holds across the two. A
/// write answers `Ledger-Read-After`; a read sending it back is served by the replica once it has replayed the write,
/// and by the primary when the replica has not within the wait (proved by pausing the replica's replay). The SDK's
/// `GET /productsStatus` takes the same read path as `GET /v1/users/{id}`, so both are proved alike.
@Suite struct ReadReplicaTests {
    /// The status reads that go through the replica.
    enum ReadPath: String, CaseIterable, Sendable {
        case user = "/v1/users/{id}"
        case productsStatus = "/productsStatus"

        func request(_ user: String, _ tenant: LedgerTenant) -> (path: String, headers: [String: String]) {
            switch self {
            case .user: ("/v1/users/\(user)", tenant.secret)
            case .productsStatus: ("/productsStatus?user-id=\(user)", ["APIKey": tenant.secretKey])
            }
        }

        /// Whether the answer includes the user's subscription (the seed's shape lists every product the user bought).
        func knowsSubscription(_ json: [String: Any]) -> Bool {
            switch self {
            case .user: (json["subscriptions"] as? [Any])?.isEmpty == false
            case .productsStatus: ((json["_embedded"] as? [String: Any])?["products"] as? [Any])?.isEmpty == false
            }
        }
    }

    @Test(.timeLimit(.minutes(10)), arguments: ReadPath.allCases)
    func aReadAfterAWriteSeesItOnTheReplicaOrFromThePrimary(_ path: ReadPath) async throws {
        let directory = NSTemporaryDirectory() + "ledger-replica-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let installation = try PostgresInstallation.locate()
        let options = EmbeddedCluster.Options(unsafeFastWrites: true, maxConnections: 100)
        let primaryCluster = EmbeddedCluster(directory: directory + "/primary", installation: installation, options: options)
        let primary = try await Blocking.run { try primaryCluster.start() }
        defer { try? primaryCluster.stop() }
        try primary.ensureDatabase("ledger")
        let replicaCluster = EmbeddedCluster(directory: directory + "/replica", installation: installation, options: options)
        let replica = try await Blocking.run {
            try replicaCluster.createReplica(of: primary)
            return try replicaCluster.start()
        }
        defer { try? replicaCluster.stop() }

        let signer = try AppStoreTestSigner()
        let histories = try SubscriptionHistories(users: 2, seed: 51, signer: signer)
        let server = try ServerProcess(
            databaseURL: primary.connectionString(database: "ledger"), rootFiles: try RootFiles.write(signer),
            adminToken: LedgerTenant.adminToken,
            extraEnvironment: [
                "LEDGER_READ_DATABASE_URL": replica.connectionString(database: "ledger"),
                "LEDGER_READ_REPLICA_WAIT_MS": "3000",
                // The replica path alone (the status cache would answer the repeated reads; StatusCacheTests).
                "LEDGER_STATUS_CACHE_MB": "0"
            ])
        try await server.start()
        defer { server.killNow() }
        let client = HTTPClient(base: server.baseURL, timeout: 30)
        let tenant = try await LedgerTenant.create(client)

        // 1. A write, then a read with its token: the replica answers, with the write.
        let (alice, bob) = (histories.users[0], histories.users[1])
        let aliceToken = try await Self.write(histories.deliveries[0][0], tenant, client)
        #expect(
            try await eventually {
                let read = try await Self.read(alice, token: aliceToken, tenant, client, path)
                return read.knowsSubscription && read.source == "replica"
            }, "the replica never answered with the write")

        // 2. The replica stops replaying: a read without a token is served by it, behind; a read with the token waits,
        //    then reads the primary, which has the write.
        let replicaPool = PostgresPool(
            configuration: PostgresConfiguration(connectionString: replica.connectionString(database: "ledger")),
            size: 1)
        defer { Task { await replicaPool.shutdown() } }
        try await replicaPool.query("SELECT pg_wal_replay_pause()")  // taken before the next WAL record is applied
        let bobToken = try await Self.write(histories.deliveries[1][0], tenant, client)
        let behind = try await Self.read(bob, token: nil, tenant, client, path)
        #expect(behind.source == "replica" && !behind.knowsSubscription, "\(behind)")
        let fromPrimary = try await Self.read(bob, token: bobToken, tenant, client, path)
        #expect(fromPrimary.source == "primary" && fromPrimary.knowsSubscription, "\(fromPrimary)")

        // 3. Replay resumes: the same read is the replica's again, with the write.
        try await replicaPool.query("SELECT pg_wal_replay_resume()")
        let caughtUp = try await Self.read(bob, token: bobToken, tenant, client, path)
        #expect(caughtUp.source == "replica" && caughtUp.knowsSubscription, "\(caughtUp)")

        // A token that is not a WAL position is the caller's mistake.
        let (badPath, badHeaders) = path.request(bob, tenant)
        let bad = try await client.send("GET", badPath, headers: badHeaders.merging(["Ledger-Read-After": "yesterday"]) { $1 })
        #expect(bad.status == 400 && bad.text.contains("Ledger-Read-After"), "\(bad.text)")
        _ = await server.stop()
    }

    /// Posts one notification; the token its answer carries.
    static func write(_ delivery: Delivery, _ tenant: LedgerTenant, _ client: HTTPClient) async throws -> String {
        let (path, headers) = delivery.request(for: tenant)
        let answer = try await client.send("POST", path, headers: headers, body: delivery.body)
        #expect(answer.isSuccess, "\(answer.text)")
        return try #require(answer.headers["ledger-read-after"], "the write answered no token: \(answer.headers)")
    }

    struct Read: CustomStringConvertible {
        var source: String?
        var knowsSubscription: Bool
        var description: String { "read from \(source ?? "?"), subscription known: \(knowsSubscription)" }
    }

    static func read(_ user: String, token: String?, _ tenant: LedgerTenant, _ client: HTTPClient, _ path: ReadPath) async throws -> Read {
        let (target, credentials) = path.request(user, tenant)
        let headers = credentials.merging(token.map { ["Ledger-Read-After": $0] } ?? [:]) { $1 }
        let answer = try await client.send("GET", target, headers: headers)
        #expect(answer.status == 200, "\(answer.text)")
        return Read(source: answer.headers["ledger-read-from"], knowsSubscription: path.knowsSubscription(answer.json))
    }
}
