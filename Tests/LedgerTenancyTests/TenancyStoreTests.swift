import Crypto
import LedgerDomain
import LedgerStore
import LedgerTenancy
import PostgresClient
import PostgresTestSupport
import Testing

@Suite struct TenancyStoreTests {
    @Test func keysAreStoredOnlyAsHashesAndStopWorkingWhenRevoked() async throws {
        let pool = try await LedgerDatabase.open(connectionString: try await TestDatabase.makeDatabase(), migrations: try SchemaLocation.migrations())
        let store = TenancyStore(pool: pool)
        let account = try await store.createAccount(name: "Acme")
        let app = try await store.createApp(.init(accountID: account.id, name: "Pro", bundleID: "com.acme.pro", transferPolicy: .keepAndRefuse))
        #expect(app.transferPolicy == .keepAndRefuse)
        let (record, key) = try await store.createKey(app: app.id, kind: .secret, name: "backend")
        #expect(key.hasPrefix("sk_") && key.count > 40)
        let stored = try await pool.query("SELECT key_hash FROM ledger.api_keys").first?.decode([UInt8].self, at: 0)
        #expect(stored == Array(SHA256.hash(data: Array(key.utf8))))
        let dump = try await pool.query("SELECT row_to_json(k)::text FROM ledger.api_keys k").first?.decode(String.self, at: 0) ?? ""
        #expect(!dump.contains(key))
        #expect(try await store.authenticate(key: key)?.id == record.id)
        #expect(try await store.authenticate(key: key + "x") == nil)
        #expect(try await store.authenticate(key: "sk_' OR '1'='1") == nil)
        let revoked = try await store.revokeKey(app: app.id, keyID: record.id)
        #expect(revoked?.revokedAt != nil)
        #expect(try await store.authenticate(key: key) == nil)
        // Another app cannot revoke (or see) this app's key.
        let other = try await store.createApp(.init(accountID: account.id, name: "Other", bundleID: "com.acme.other"))
        #expect(try await store.revokeKey(app: other.id, keyID: record.id) == nil)
        await #expect(throws: TenancyError.unknownAccount("acct_missing")) {
            try await store.createApp(.init(accountID: "acct_missing", name: "x", bundleID: "b"))
        }
        await pool.shutdown()
    }

    @Test func productsAreUpsertedPerAppAndTheSecretIsSharedAndStable() async throws {
        let pool = try await LedgerDatabase.open(connectionString: try await TestDatabase.makeDatabase(), migrations: try SchemaLocation.migrations())
        let store = TenancyStore(pool: pool)
        let account = try await store.createAccount(name: "Acme")
        let app = try await store.createApp(.init(accountID: account.id, name: "Pro", bundleID: "com.acme.pro"))
        _ = try await store.putProduct(
            app: app.id,
            .init(
                productID: "monthly", type: .autoRenewable, subscriptionGroup: "g",
                entitlements: ["pro"]))
        _ = try await store.putProduct(
            app: app.id,
            .init(
                productID: "monthly", type: .autoRenewable, subscriptionGroup: nil,
                entitlements: ["pro", "ads_free"]))
        let products = try await store.products(app: app.id)
        #expect(products.map(\.entitlements) == [["pro", "ads_free"]])
        #expect(products.catalog.entitlements(of: "monthly") == ["pro", "ads_free"])
        let first = try await store.serverSecret(named: "uid_cookie")
        #expect(first.count == 32)
        #expect(try await store.serverSecret(named: "uid_cookie") == first)
        await pool.shutdown()
    }

    /// Instances starting together all ask for the secret at once: each gets the one that was stored (the one whose
    /// insert lost the race reads the winner's), never nothing.
    @Test func instancesAskingForTheSecretAtOnceAllGetTheStoredOne() async throws {
        let url = try await TestDatabase.makeDatabase()
        let migrations = try SchemaLocation.migrations()
        var pools: [PostgresPool] = []
        for _ in 0..<4 { pools.append(try await LedgerDatabase.open(connectionString: url, poolSize: 4, migrations: migrations)) }
        for round in 0..<5 {
            let secrets = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for pool in pools { for _ in 0..<4 { group.addTask { try await TenancyStore(pool: pool).serverSecret(named: "race-\(round)") } } }
                return try await group.reduce(into: [[UInt8]]()) { $0.append($1) }
            }
            #expect(secrets.count == 16 && Set(secrets).count == 1 && secrets[0].count == 32)
        }
        for pool in pools { await pool.shutdown() }
    }
}
