import Crypto
import Foundation
import LedgerOperators
import LedgerPrivacy
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

@Suite struct OperatorStoreTests {
    static let now = Instant(secondsSinceEpoch: 1_795_000_000)
    static let password = "correct horse battery staple"

    struct World {
        let pool: PostgresPool
        let key: SymmetricKey
        let store: OperatorStore
    }

    static func world() async throws -> World {
        let pool = try await LedgerDatabase.open(
            connectionString: try await TestDatabase.makeDatabase(prefix: "operators"), migrations: try SchemaLocation.migrations())
        let key = SymmetricKey(size: .bits256)
        return World(pool: pool, key: key, store: OperatorStore(pool: pool, masterKey: key))
    }

    /// The operator's one-time-password secret, as the server reads it back (sealed under the master key).
    static func secret(of name: String, in world: World) async throws -> String {
        let sealed = try #require(
            try await world.pool.query("SELECT totp_sealed FROM ledger.operators WHERE name = \(name)").first?.decode([UInt8]?.self, at: 0))
        return String(decoding: try SecretBox(key: world.key).open(sealed), as: UTF8.self)
    }

    @Test func codesAreRFC6238s() {
        // RFC 6238 appendix B, SHA-1, the last six of the eight digits.
        let totp = OneTimePassword(secret: "12345678901234567890")
        #expect(totp.code(step: OneTimePassword.step(at: Instant(secondsSinceEpoch: 59))) == "287082")
        #expect(totp.code(step: OneTimePassword.step(at: Instant(secondsSinceEpoch: 1_111_111_109))) == "081804")
        #expect(totp.code(step: OneTimePassword.step(at: Instant(secondsSinceEpoch: 2_000_000_000))) == "279037")
    }

    @Test func passwordsAreBcryptAtCost12AndTheSecretIsSealed() async throws {
        let world = try await Self.world()
        let (record, uri) = try await world.store.add(name: "alice", role: .admin, password: Self.password, by: .shell(user: "test"), at: Self.now)
        #expect(record.role == .admin && record.hasOneTimePassword && !record.isDisabled)
        let uriText = try #require(uri)
        #expect(uriText.hasPrefix("otpauth://totp/Subscription%20Ledger:alice?secret="))
        let row = try #require(try await world.pool.query("SELECT password_hash, totp_sealed FROM ledger.operators").first)
        let hash = try row.decode(String.self, at: 0)
        #expect(hash.hasPrefix("$2b$12$") && !hash.contains(Self.password))
        let secret = try await Self.secret(of: "alice", in: world)
        let sealed = try row.decode([UInt8].self, at: 1)
        #expect(!String(decoding: sealed, as: UTF8.self).contains(secret))
        // Another master key does not open it.
        #expect(throws: PrivacyError.self) { try SecretBox(key: SymmetricKey(size: .bits256)).open(sealed) }
        await world.pool.shutdown()
    }

    @Test func signInTakesThePasswordAndAFreshCodeOnce() async throws {
        let world = try await Self.world()
        _ = try await world.store.add(name: "alice", role: .finance, password: Self.password, by: .shell(user: "test"), at: Self.now)
        let totp = OneTimePassword(secret: try await Self.secret(of: "alice", in: world))
        let step = OneTimePassword.step(at: Self.now)
        let signedIn = try await world.store.signIn(name: "alice", password: Self.password, oneTimePassword: totp.code(step: step), at: Self.now)
        #expect(signedIn.name == "alice" && signedIn.role == .finance)
        // The same code again (replayed), an older one (expired), a wrong one, none, a wrong password: all refused alike.
        for (password, code) in [
            (Self.password, totp.code(step: step)), (Self.password, totp.code(step: step - 2)), (Self.password, "000000"),
            (Self.password, nil), ("wrong password here", totp.code(step: step + 1))
        ] as [(String, String?)] {
            await #expect(throws: OperatorError.signInRefused) {
                try await world.store.signIn(name: "alice", password: password, oneTimePassword: code, at: Self.now)
            }
            // Each attempt judged alone, not slowed by the ones before.
            try await world.store.unlock(name: "alice", by: .shell(user: "test"), at: Self.now)
        }
        // The next step's code works (clock drift of one step), once.
        #expect(
            try await world.store.signIn(name: "alice", password: Self.password, oneTimePassword: totp.code(step: step + 1), at: Self.now).name
                == "alice")
        await world.pool.shutdown()
    }

    @Test func anUnknownOrDisabledOperatorIsRefusedLikeAWrongPassword() async throws {
        let world = try await Self.world()
        _ = try await world.store.add(
            name: "sam", role: .support, password: Self.password, oneTimePassword: false, by: .shell(user: "test"), at: Self.now)
        #expect(try await world.store.signIn(name: "sam", password: Self.password, oneTimePassword: nil, at: Self.now).role == .support)
        await #expect(throws: OperatorError.signInRefused) {
            try await world.store.signIn(name: "nobody", password: Self.password, oneTimePassword: nil, at: Self.now)
        }
        try await world.store.disable(name: "sam", by: .shell(user: "test"), at: Self.now)
        await #expect(throws: OperatorError.signInRefused) {
            try await world.store.signIn(name: "sam", password: Self.password, oneTimePassword: nil, at: Self.now)
        }
        #expect(try await world.store.find(name: "sam")?.disabledAt == Self.now)
        await world.pool.shutdown()
    }

    @Test func rulesForNamesPasswordsAndSecondFactors() async throws {
        let world = try await Self.world()
        await #expect(throws: OperatorError.oneTimePasswordRequired(.admin)) {
            try await world.store.add(
                name: "root", role: .admin, password: Self.password, oneTimePassword: false, by: .shell(user: "test"), at: Self.now)
        }
        await #expect(throws: OperatorError.weakPassword("use at least 12 characters")) {
            try await world.store.add(name: "short", role: .auditor, password: "eleven chrs", by: .shell(user: "test"), at: Self.now)
        }
        await #expect(throws: OperatorError.self) {
            try await world.store.add(
                name: "long", role: .auditor, password: String(repeating: "x", count: 73), by: .shell(user: "test"), at: Self.now)
        }
        for name in ["", "Alice", "-x", "a b", String(repeating: "a", count: 65), "ünï"] {
            await #expect(throws: OperatorError.invalidName(name)) {
                try await world.store.add(name: name, role: .auditor, password: Self.password, by: .shell(user: "test"), at: Self.now)
            }
        }
        _ = try await world.store.add(
            name: "ann", role: .auditor, password: Self.password, oneTimePassword: false, by: .shell(user: "test"), at: Self.now)
        await #expect(throws: OperatorError.nameTaken("ann")) {
            try await world.store.add(name: "ann", role: .support, password: Self.password, by: .shell(user: "test"), at: Self.now)
        }
        // Moving to a role that needs a second factor gives one; the new password replaces the old.
        let (promoted, uri) = try await world.store.setRole(name: "ann", role: .admin, by: .shell(user: "test"), at: Self.now)
        #expect(promoted.role == .admin && promoted.hasOneTimePassword && uri != nil)
        try await world.store.resetPassword(name: "ann", password: "a brand new password", by: .shell(user: "test"), at: Self.now)
        let code = OneTimePassword(secret: try await Self.secret(of: "ann", in: world)).code(step: OneTimePassword.step(at: Self.now))
        await #expect(throws: OperatorError.signInRefused) {
            try await world.store.signIn(name: "ann", password: Self.password, oneTimePassword: code, at: Self.now)
        }
        #expect(try await world.store.signIn(name: "ann", password: "a brand new password", oneTimePassword: code, at: Self.now).role == .admin)
        await #expect(throws: OperatorError.unknownOperator("zed")) {
            try await world.store.setRole(name: "zed", role: .admin, by: .shell(user: "test"), at: Self.now)
        }
        await world.pool.shutdown()
    }
}
