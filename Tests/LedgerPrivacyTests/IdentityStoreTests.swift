import Crypto
@testable import LedgerPrivacy
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// Pseudonyms and data keys (docs/erasure.md): a user id is stored once, sealed under the user's data key and found
/// by its blind index; destroying the key leaves the pseudonym saying nothing.
@Suite struct IdentityStoreTests {
    static func open() async throws -> PostgresPool {
        let url = try await TestDatabase.makeDatabase(prefix: "identities")
        return try await LedgerDatabase.open(connectionString: url, migrations: try SchemaLocation.migrations())
    }

    @Test func aUserIsNamedByOnePseudonymAndStoredOnlySealed() async throws {
        let pool = try await Self.open()
        let store = IdentityStore(pool: pool, box: SecretBox(key: SymmetricKey(size: .bits256)))
        // Named at once from many places: one pseudonym.
        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try await store.pseudonym(app: "app", user: "alice@example.com") } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(names.count == 1)
        let alice = try #require(names.first)
        #expect(alice.hasPrefix("usr_") && !alice.contains("alice"))
        #expect(try await store.find(app: "app", user: "alice@example.com") == alice)
        #expect(try await store.find(app: "other-app", user: "alice@example.com") == nil, "pseudonyms are per app")
        #expect(try await store.pseudonym(app: "other-app", user: "alice@example.com") != alice)
        #expect(try await store.userID(app: "app", pseudonym: alice) == "alice@example.com")
        #expect(try await store.userID(app: "app", pseudonym: "usr_unknown") == nil)
        // The id is nowhere in clear.
        let clear = try await pool.query(
            """
            SELECT count(*) FROM ledger.identities i
            WHERE position(convert_to('alice', 'UTF8') IN coalesce(i.sealed_user_id, '')) > 0
               OR position(convert_to('alice', 'UTF8') IN coalesce(i.blind_index, '')) > 0
            """)
        #expect(try clear[0].decode(Int64.self, at: 0) == 0)
        await pool.shutdown()
    }

    @Test func aDestroyedDataKeyOpensNothingAndIsDestroyedOnce() async throws {
        let pool = try await Self.open()
        let box = SecretBox(key: SymmetricKey(size: .bits256))
        let store = IdentityStore(pool: pool, box: box)
        let bob = try await store.pseudonym(app: "app", user: "bob")
        let now = Instant(secondsSinceEpoch: 1_795_000_000)
        #expect(try await pool.withConnection { try DataKeyStore.destroy(app: "app", subject: "user:" + bob, at: now, on: $0) })
        #expect(try await pool.withConnection { try DataKeyStore.destroy(app: "app", subject: "user:" + bob, at: now, on: $0) } == false)
        #expect(try await store.userID(app: "app", pseudonym: bob) == nil, "the id does not open without its key")
        #expect(try await pool.withConnection { try DataKeyStore.key(app: "app", subject: "user:" + bob, box: box, on: $0) } == nil)
        // A purchase's key is made once and read back the same.
        let first = try await pool.withConnection { try DataKeyStore.key(app: "app", subject: "purchase:1000", box: box, on: $0) }
        let again = try await pool.withConnection { try DataKeyStore.key(app: "app", subject: "purchase:1000", box: box, on: $0) }
        #expect(first?.id == again?.id)
        #expect(first?.key.withUnsafeBytes { Array($0) } == again?.key.withUnsafeBytes { Array($0) })
        await pool.shutdown()
    }
}

/// The keyed HMAC a blind index reuses gives what HMAC-SHA-256 of the app, a zero byte and the id gives, call after
/// call (each index starts from the keyed state, never from the last one's).
@Suite struct BlindIndexKeyTests {
    @Test func theKeyedIndexIsTheHMACOfTheAppAZeroAndTheIDEveryTime() {
        let key = SymmetricKey(size: .bits256)
        let indexes = BlindIndexKey(key)
        let pairs = [("app", "u1"), ("app", "u1"), ("", ""), ("ap", "pu1"), ("app_ü", "用户-🙂"), ("a", String(repeating: "x", count: 300))]
        for (app, user) in pairs {
            let expected = Array(HMAC<SHA256>.authenticationCode(for: Array(app.utf8) + [0] + Array(user.utf8), using: key))
            #expect(indexes.index(app: app, user: user) == expected, "\(app) / \(user)")
            #expect(IdentityStore.blindIndex(app: app, user: user, key: key) == expected)
        }
        #expect(indexes.index(app: "ap", user: "pu1") != indexes.index(app: "app", user: "u1"), "the zero byte separates app and id")
    }
}
