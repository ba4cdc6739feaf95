import AppStoreSamples
import AppStoreServerAPI
import AppStoreServerTestSupport
import AppStoreSync
import AppStoreVerification
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LedgerDomain
import LedgerServer
import LedgerStore
import LedgerTenancy
import NIOCore
import PostgresTestSupport
import Testing
import X509

/// The settings file and trust roots the commands read, written for a world.
enum SettingsFile {
    static func write(world: SyncWorld, privateKey: P256.Signing.PrivateKey? = nil, consumption: String? = nil) throws -> String {
        let keyFile = TestScratch.path("AuthKey_\(UUID().uuidString).p8")
        try (privateKey ?? world.privateKey).pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let config = TestScratch.path("appstore-api-\(UUID().uuidString).json")
        let extra = consumption.map { #", "consumption_information": "# + $0 } ?? ""
        try """
        {"apps": {"\(world.app.id)": {"key_id": "\(SyncWorld.keyID)", "issuer_id": "\(SyncWorld.issuerID)",
          "private_key_file": "\(keyFile)", "environment": "sandbox", "base_url": "\(world.fake.baseURL)"\(extra)}}}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        return config
    }

    static func roots(_ signer: AppStoreTestSigner) throws -> [String] {
        try signer.roots.map { root in
            let path = TestScratch.path("root-\(UUID().uuidString).der")
            try Data(TestPKI.der(root)).write(to: URL(fileURLWithPath: path))
            return path
        }
    }
}

@Suite(.timeLimit(.minutes(10))) struct BackfillCommandTests {
    @Test func theCommandBackfillsFromAFileAndSaysWhatIsWrongWithItsSettings() async throws {
        let world = try await SyncWorld.make()
        let config = try SettingsFile.write(world: world)
        let roots = try SettingsFile.roots(world.signer).flatMap { ["--root", $0] }
        let ids = TestScratch.path("ids-\(UUID().uuidString).txt")
        try "# purchases to import\n1000\n\n2000\n".write(toFile: ids, atomically: true, encoding: .utf8)
        let base = ["appstore", "backfill", "--database-url", world.url, "--app", world.app.id, "--master-key", SyncWorld.masterKeyFile] + roots
        #expect(try await ledger(base + ["--config", config, "--from-file", ids]) == 0)
        #expect(Set(try await world.events().keys.filter { $0.hasPrefix("tx:") }).count == 61)
        // Running it again records nothing and still succeeds.
        #expect(try await ledger(base + ["--config", config, "--transaction-id", "1044"]) == 0)

        // A wrong key: a failure naming what to check.
        let wrong = try SettingsFile.write(world: world, privateKey: P256.Signing.PrivateKey())
        let refused = try await ledgerWithFailure(base + ["--config", wrong, "--transaction-id", "1000"])
        #expect(refused.code == 1 && refused.failure?.contains("key_id") == true)
        // Settings that cannot work are usage errors (exit 2) before anything is called.
        let calls = world.fake.calls.count
        let broken = TestScratch.path("broken-\(UUID().uuidString).json")
        try #"{"apps": {"x": {"key_id": "K"}}}"#.write(toFile: broken, atomically: true, encoding: .utf8)
        #expect(try await ledger(base + ["--config", broken, "--transaction-id", "1000"]) == 2)
        #expect(try await ledger(base + ["--config", "/nonexistent.json", "--transaction-id", "1000"]) == 2)
        #expect(try await ledger(base + ["--config", config]) == 2)  // no id
        #expect(world.fake.calls.count == calls)

        let checks = try await world.checkLogAndReadModels()
        #expect(checks.replay == 0 && checks.verify == 0)
        await world.close()
    }
}

@Suite(.timeLimit(.minutes(10))) struct ServeSettingsTests {
    @Test func serveRefusesToStartWithSettingsItCannotUse() async throws {
        let world = try await SyncWorld.make()
        let unreadable = try await ledgerWithFailure(["serve", "--database-url", world.url, "--appstore-api-config", "/nonexistent.json"])
        #expect(unreadable.code == 1 && unreadable.failure?.contains("/nonexistent.json cannot be read") == true)
        // An app the ledger does not have, named in otherwise good settings: refused at start, before serving.
        let config = try SettingsFile.write(world: world)
        let text = try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(of: world.app.id, with: "app_unknown")
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        let unknown = try await ledgerWithFailure(["serve", "--database-url", world.url, "--port", "0", "--appstore-api-config", config])
        #expect(unknown.code == 1 && unknown.failure?.contains("app_unknown") == true)
        await world.close()
    }
}

@Suite(.timeLimit(.minutes(10))) struct BackfillRouteTests {
    @Test func theAPIBackfillsForTheSecretKeyOrTheAdminAndRefusesBadRequests() async throws {
        let world = try await SyncWorld.make()
        let clients = AppStoreClients(
            settings: try AppStoreAPISettings.load(path: try SettingsFile.write(world: world)),
            retryPolicy: SyncWorld.retryPolicy, logger: world.logger)
        let api = try await world.makeAPI(
            .init(
                adminToken: "admin-token", roots: TrustRoots(certificates: world.signer.roots), appStore: clients))
        let (_, secret) = try await world.tenancy.createKey(app: world.app.id, kind: .secret, name: nil)
        let other = try await world.tenancy.createApp(.init(accountID: world.app.accountID, name: "Other", bundleID: "com.other"))
        let (_, otherSecret) = try await world.tenancy.createKey(app: other.id, kind: .secret, name: nil)
        let router = LedgerApplication.makeRouter(readiness: ReadinessCheck(pool: world.pool, migrations: try SchemaLocation.migrations()), api: api)
        let app = world.app.id
        try await Application(router: router).test(.router) { client in
            func post(_ path: String, _ body: String, _ credential: String) async throws -> (HTTPResponse.Status, String) {
                try await client.execute(
                    uri: path, method: .post, headers: [.authorization: "Bearer \(credential)"],
                    body: ByteBuffer(string: body)
                ) { ($0.status, String(buffer: $0.body)) }
            }
            let (status, text) = try await post("/v1/apps/\(app)/appstore/backfill", #"{"transaction_ids": ["2000"]}"#, secret)
            #expect(status == .ok && text.contains(#""purchases":2"#) && text.contains(#""transactions_seen":11"#))
            let (again, againText) = try await post(
                "/v1/admin/apps/\(app)/appstore/backfill", #"{"transaction_ids": ["2000", "2000"]}"#,
                "admin-token")
            #expect(again == .ok && againText.contains(#""events_recorded":0"#), "\(again): \(againText)")
            let tooMany = #"{"transaction_ids": ["# + (1...101).map { #""\#($0)""# }.joined(separator: ",") + "]}"
            for bad in [
                #"{}"#, #"{"transaction_ids": []}"#, #"{"transaction_ids": ["12a"]}"#, #"{"transaction_ids": [1]}"#,
                #"{"transaction_ids": ["1"], "more": 1}"#, tooMany
            ] {
                #expect(try await post("/v1/apps/\(app)/appstore/backfill", bad, secret).0 == .badRequest)
            }
            let (refused, _) = try await post("/v1/apps/\(app)/appstore/backfill", #"{"transaction_ids": ["1"]}"#, otherSecret)
            #expect(refused == .forbidden || refused == .unauthorized)
            let (unconfigured, message) = try await post("/v1/apps/\(other.id)/appstore/backfill", #"{"transaction_ids": ["1"]}"#, otherSecret)
            #expect(unconfigured == .conflict && message.contains("appstore_api_not_configured"))
            #expect(try await post("/v1/admin/apps/app_nope/appstore/backfill", #"{"transaction_ids": ["1"]}"#, "admin-token").0 == .notFound)
        }
        #expect(world.fake.calls.filter { $0.path.hasPrefix("/inApps/v2/history/") }.count == 4)  // two pages, twice
        await world.close()
    }
}
