import Foundation
import LedgerDomain
import LedgerOperators
import LedgerPrivacy
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing

/// `ledger keys rotate` while a service goes on sealing secrets with the same key file: nothing is lost, the old key
/// leaves the file, and every secret, data key and the blind-index key open under the new key alone.
@Suite struct KeysCommandTests {
    @Test(.timeLimit(.minutes(10))) func rotatingUnderAWriteLoadLosesNothing() async throws {
        let url = try await TestDatabase.makeDatabase(prefix: "keys_rotate")
        let path = TestScratch.path("rotate-master-key")
        let pool = try await LedgerDatabase.open(connectionString: url, migrations: try SchemaLocation.migrations())
        // The service's view of the key file: read again when it changes.
        let service = OperatorStore(pool: pool, keys: try MasterKeySource(path: path, create: true))
        let before = try MasterKeyFile.load(path: path)
        // A user's identity: its data key and the blind-index key are sealed under the master key too.
        let identities = IdentityStore(pool: pool, box: SecretBox(keys: try MasterKeySource(path: path, create: false)))
        let pseudonym = try await identities.pseudonym(app: "app", user: "carol")
        var issued: [String: String] = [:]
        for index in 0..<3 {
            let (_, uri) = try await service.add(
                name: "before-\(index)", role: .admin, password: "a long password", by: .shell(user: "test"), at: LedgerClock.system.now())
            issued["before-\(index)"] = try #require(uri)
        }

        // Operators keep being added (each seals a new secret), and users and purchases named (each makes a data key
        // and seals a field under it) while the rotation runs.
        let load = Task {
            var secrets: [String: String] = [:]
            for index in 0..<8 {
                let (_, uri) = try await service.add(
                    name: "during-\(index)", role: .finance, password: "a long password", by: .shell(user: "test"), at: LedgerClock.system.now())
                secrets["during-\(index)"] = try #require(uri)
            }
            return secrets
        }
        let fieldLoad = Task {
            var sealed: [String: String] = [:]
            for index in 0..<8 {
                let user = try await identities.pseudonym(app: "app", user: "during-user-\(index)")
                let purchase = ExternalPurchase(
                    appUserID: user, productID: "coins", productType: .consumable, paymentID: "ch_\(index)", provider: "paylike",
                    purchasedAt: LedgerClock.system.now(), price: Money(milliunits: 990, currency: "USD"), developerPayload: "payload-\(index)")
                guard case .externalPurchase(let stored) = try await identities.fields.sealing(app: "app", [.externalPurchase(purchase)])[0],
                    let payload = stored.developerPayload
                else { throw PrivacyError.sealing("not an external purchase") }
                sealed[payload] = "payload-\(index)"
            }
            return sealed
        }
        let rotated = try await OperatorsCommandTests.ledger(["keys", "rotate", "--database-url", url], masterKey: path)
        #expect(rotated.status == 0 && rotated.output.contains("sealed again"), "\(rotated.output)")
        issued.merge(try await load.value) { $1 }
        let fields = try await fieldLoad.value

        let after = try MasterKeyFile.load(path: path)
        #expect(after.previous.isEmpty, "the old key left the file")
        #expect(MasterKeyring.fingerprint(after.current) != MasterKeyring.fingerprint(before.current))
        // Every secret opens under the new key alone, and is the one issued.
        let newOnly = SecretBox(key: after.current)
        let rows = try await pool.query("SELECT name, totp_sealed FROM ledger.operators ORDER BY name")
        #expect(rows.count == 11)
        for row in rows {
            let (name, sealed) = (try row.decode(String.self, at: 0), try row.decode([UInt8].self, at: 1))
            #expect(newOnly.isCurrent(sealed), "\(name) is sealed under the new key")
            let secret = String(decoding: try newOnly.open(sealed), as: UTF8.self)
            #expect(OneTimePassword(secret: secret).authenticatorURI(operator: name) == issued[name], "\(name)'s secret is the one issued")
        }
        #expect(throws: PrivacyError.self) { try SecretBox(key: before.current).open(try rows[0].decode([UInt8].self, at: 1)) }
        // The identity still resolves, under the new key alone; nothing is left sealed under the old one.
        let rotatedIdentities = IdentityStore(pool: pool, box: newOnly)
        #expect(try await rotatedIdentities.find(app: "app", user: "carol") == pseudonym)
        #expect(try await rotatedIdentities.userID(app: "app", pseudonym: pseudonym) == "carol")
        for index in 0..<8 {
            let found = try #require(try await rotatedIdentities.find(app: "app", user: "during-user-\(index)"))
            #expect(try await rotatedIdentities.userID(app: "app", pseudonym: found) == "during-user-\(index)")
        }
        #expect(try await rotatedIdentities.fields.open(app: "app", fields.keys) == fields, "every field sealed during the rotation opens")
        for column in OperatorStore.sealedColumns + IdentityStore.sealedColumns {
            #expect(try await column.reseal(with: newOnly, pool: pool).stale == 0, "\(column.table) is all under the new key")
        }
        // The service goes on with the rotated file, and the rotation is in the operator record.
        _ = try await service.add(name: "after", role: .admin, password: "a long password", by: .shell(user: "test"), at: LedgerClock.system.now())
        let last = try await pool.query("SELECT totp_sealed FROM ledger.operators WHERE name = 'after'")[0].decode([UInt8].self, at: 0)
        #expect(newOnly.isCurrent(last))
        let record = try await OperatorActionLog(pool: pool).list(OperatorActionFilter(action: "keys.rotate"), limit: 5)
        #expect(record.count == 1 && record.first?.detail.contains("secret(s) sealed again") == true, "\(record)")

        // Several hosts: --begin keeps the old key in the file, --finish drops it.
        let begun = try await OperatorsCommandTests.ledger(["keys", "rotate", "--begin", "--database-url", url], masterKey: path)
        #expect(begun.status == 0 && begun.output.contains("--finish"), "\(begun.output)")
        #expect(try MasterKeyFile.load(path: path).previous.count == 1)
        let finished = try await OperatorsCommandTests.ledger(["keys", "rotate", "--finish", "--database-url", url], masterKey: path)
        #expect(finished.status == 0, "\(finished.output)")
        #expect(try MasterKeyFile.load(path: path).previous.isEmpty)
        await pool.shutdown()
    }

    @Test func aMissingOrForeignKeyFileIsAClearError() async throws {
        let url = try await TestDatabase.makeDatabase(prefix: "keys_missing")
        let missing = try await OperatorsCommandTests.ledger(["keys", "rotate", "--database-url", url], masterKey: TestScratch.path("no-such-key"))
        #expect(missing.status != 0 && missing.output.contains("cannot be read"), "\(missing.output)")
        let both = try await OperatorsCommandTests.ledger(["keys", "rotate", "--begin", "--finish", "--database-url", url], masterKey: "x")
        #expect(both.status != 0 && both.output.contains("two runs"), "\(both.output)")
    }
}
