import Crypto
import HummingbirdBcrypt
import LedgerPrivacy
import LedgerStore
import PostgresClient
import UTCTime

/// Operator accounts (`ledger.operators`, `schema/019_operators.sql`): created, listed, disabled, given a new
/// password or role, and checked at sign-in. Passwords are hashed with bcrypt (hummingbird-auth's, cost 12); the
/// one-time-password secret is sealed under the master key. Hashing takes a quarter of a second on purpose, so every
/// call that hashes runs on a thread of its own, never on an event loop.
package struct OperatorStore: Sendable {
    package static let bcryptCost: UInt8 = 12
    let pool: PostgresPool
    let box: SecretBox
    /// Where every change of an operator is recorded.
    let actions: OperatorActionLog
    /// Failed sign-ins, per name and per address.
    let throttle: SignInThrottleStore

    /// `keys`: the master key file as a running service reads it (again after a rotation).
    package init(pool: PostgresPool, keys: MasterKeySource) {
        self.pool = pool
        self.box = SecretBox(keys: keys)
        self.actions = OperatorActionLog(pool: pool)
        self.throttle = SignInThrottleStore(pool: pool)
    }

    package init(pool: PostgresPool, masterKey: SymmetricKey) { self.init(pool: pool, keys: MasterKeySource(key: masterKey)) }

    /// What a master key rotation seals again: the one-time-password secrets.
    package static let sealedColumns = [SealedColumn(table: "ledger.operators", key: ["operator_id"], column: "totp_sealed")]

    /// A new operator; with `oneTimePassword` (required for admin and finance), the authenticator URI of its secret,
    /// shown this once.
    package func add(name: String, role: OperatorRole, password: String, oneTimePassword: Bool = true, by actor: OperatorActor, at now: Instant)
        async throws -> (record: OperatorRecord, authenticatorURI: String?)
    {
        try Self.check(name: name)
        try Self.check(password: password)
        guard oneTimePassword || !role.requiresOneTimePassword else { throw OperatorError.oneTimePasswordRequired(role) }
        let hash = await Self.hash(password)
        let secret = oneTimePassword ? OneTimePassword.newSecret() : nil
        let sealed = try secret.map { try box.seal(Array($0.utf8)) }
        let id = RandomToken.identifier(prefix: "op_")
        let inserted = try await pool.query(
            """
            INSERT INTO ledger.operators (operator_id, name, role, password_hash, totp_sealed, created_at)
            VALUES (\(id), \(name), \(role.rawValue), \(hash), \(sealed)::bytea, \(now))
            ON CONFLICT (name) DO NOTHING
            RETURNING \(unescaped: Self.columns)
            """)
        guard let row = inserted.first else { throw OperatorError.nameTaken(name) }
        try await actions.append(
            "operator.add", target: name, detail: "role \(role.rawValue)\(oneTimePassword ? ", one-time password" : "")", by: actor, at: now)
        return (try Self.record(row), secret.map { OneTimePassword(secret: $0).authenticatorURI(operator: name) })
    }

    /// Every operator, by name.
    package func list() async throws -> [OperatorRecord] {
        try await pool.query("SELECT \(unescaped: Self.columns) FROM ledger.operators ORDER BY name").map(Self.record)
    }

    package func find(name: String) async throws -> OperatorRecord? {
        try await pool.query("SELECT \(unescaped: Self.columns) FROM ledger.operators WHERE name = \(name)").first.map(Self.record)
    }

    /// Disables the operator from `now` on (again: no change).
    @discardableResult
    package func disable(name: String, by actor: OperatorActor, at now: Instant) async throws -> OperatorRecord {
        let disabled = try await update(
            name: name,
            """
            UPDATE ledger.operators SET disabled_at = coalesce(disabled_at, \(now)) WHERE name = \(name)
            RETURNING \(unescaped: Self.columns)
            """)
        try await actions.append("operator.disable", target: name, by: actor, at: now)
        return disabled
    }

    /// A new password (the one-time password stays).
    @discardableResult
    package func resetPassword(name: String, password: String, by actor: OperatorActor, at now: Instant) async throws -> OperatorRecord {
        try Self.check(password: password)
        let hash = await Self.hash(password)
        let updated = try await update(
            name: name,
            """
            UPDATE ledger.operators SET password_hash = \(hash) WHERE name = \(name) RETURNING \(unescaped: Self.columns)
            """)
        try await actions.append("operator.reset_password", target: name, by: actor, at: now)
        return updated
    }

    /// A new role. An operator without a one-time password that moves to a role requiring one gets one: its
    /// authenticator URI is returned, shown this once.
    package func setRole(name: String, role: OperatorRole, by actor: OperatorActor, at now: Instant) async throws
        -> (record: OperatorRecord, authenticatorURI: String?)
    {
        guard let current = try await find(name: name) else { throw OperatorError.unknownOperator(name) }
        let change = "\(current.role.rawValue) → \(role.rawValue)"
        guard role.requiresOneTimePassword && !current.hasOneTimePassword else {
            let record = try await update(
                name: name,
                """
                UPDATE ledger.operators SET role = \(role.rawValue) WHERE name = \(name) RETURNING \(unescaped: Self.columns)
                """)
            try await actions.append("operator.set_role", target: name, detail: change, by: actor, at: now)
            return (record, nil)
        }
        let secret = OneTimePassword.newSecret()
        let sealed = try box.seal(Array(secret.utf8))
        let record = try await update(
            name: name,
            """
            UPDATE ledger.operators SET role = \(role.rawValue), totp_sealed = \(sealed), totp_last_step = 0 WHERE name = \(name)
            RETURNING \(unescaped: Self.columns)
            """)
        try await actions.append("operator.set_role", target: name, detail: change + ", new one-time password", by: actor, at: now)
        return (record, OneTimePassword(secret: secret).authenticatorURI(operator: name))
    }

    /// The operator `name` signs in as, when the password and (if it has one) the one-time password are right and it
    /// is not disabled; `OperatorError.signInRefused` otherwise, the same for every reason. A code is accepted once:
    /// its step is recorded in the same statement that checks it is newer than the last. Failures slow down and then
    /// lock further attempts of the same name and from the same `address` (`SignInThrottle`); a throttled attempt is
    /// refused unchecked (`signInThrottled`), whether or not the name exists. A success forgets the name's failures,
    /// not the address's.
    package func signIn(name: String, password: String, oneTimePassword code: String?, from address: String? = nil, at now: Instant)
        async throws -> OperatorRecord
    {
        let subjects = [SignInThrottleStore.name(name)] + (address.map { [SignInThrottleStore.address($0)] } ?? [])
        try await throttle.check(subjects, at: now)
        do {
            let record = try await checkSignIn(name: name, password: password, oneTimePassword: code, at: now)
            try await throttle.forget(subjects[0])
            return record
        } catch OperatorError.signInRefused {
            try await throttle.failed(subjects, at: now)
            throw OperatorError.signInRefused
        }
    }

    /// Lifts the throttle of a name (and its lock), or of an address when `address` is set.
    @discardableResult
    package func unlock(name: String? = nil, address: String? = nil, by actor: OperatorActor, at now: Instant) async throws -> Bool {
        let subject = address.map(SignInThrottleStore.address) ?? SignInThrottleStore.name(name ?? "")
        let lifted = try await throttle.forget(subject)
        if lifted { try await actions.append("operator.unlock", target: subject, by: actor, at: now) }
        return lifted
    }

    func checkSignIn(name: String, password: String, oneTimePassword code: String?, at now: Instant) async throws -> OperatorRecord {
        let rows = try await pool.query(
            """
            SELECT \(unescaped: Self.columns), password_hash, totp_sealed, totp_last_step FROM ledger.operators WHERE name = \(name)
            """)
        guard let row = rows.first else {
            _ = await Self.verify(password, hash: Self.decoyHash)  // as long as a real check: the timing says nothing
            throw OperatorError.signInRefused
        }
        let record = try Self.record(row)
        let hash = try row.decode(String.self, at: Self.columnCount)
        guard await Self.verify(password, hash: hash), !record.isDisabled else { throw OperatorError.signInRefused }
        guard let sealed = try row.decode([UInt8]?.self, at: Self.columnCount + 1) else { return record }
        let secret = String(decoding: try box.open(sealed), as: UTF8.self)
        let lastStep = try row.decode(Int64.self, at: Self.columnCount + 2)
        guard let code, let step = OneTimePassword(secret: secret).matchingStep(code, at: now, after: lastStep) else {
            throw OperatorError.signInRefused
        }
        let claimed = try await pool.query(
            """
            UPDATE ledger.operators SET totp_last_step = \(step)
            WHERE operator_id = \(record.id) AND totp_last_step < \(step) AND disabled_at IS NULL
            RETURNING operator_id
            """)
        guard !claimed.isEmpty else { throw OperatorError.signInRefused }  // the same code, used concurrently
        return record
    }

    // MARK: Rules and rows

    /// 12 to 72 bytes: bcrypt reads no further than 72, so a longer password would be cut silently.
    static func check(password: String) throws {
        guard password.utf8.count >= 12 else { throw OperatorError.weakPassword("use at least 12 characters") }
        guard password.utf8.count <= 72 else { throw OperatorError.weakPassword("use at most 72 bytes (bcrypt reads no further)") }
    }

    static func check(name: String) throws {
        let bytes = Array(name.utf8)
        func allowed(_ b: UInt8) -> Bool {
            (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2E || b == 0x5F || b == 0x2D || b == 0x40
        }
        guard let first = bytes.first, bytes.count <= 64, bytes.allSatisfy(allowed), first != 0x2E, first != 0x5F,
            first != 0x2D, first != 0x40
        else { throw OperatorError.invalidName(name) }
    }

    static func hash(_ password: String) async -> String {
        await Task.detached { Bcrypt.hash(password, cost: bcryptCost) }.value
    }

    static func verify(_ password: String, hash: String) async -> Bool {
        await Task.detached { Bcrypt.verify(password, hash: hash) }.value
    }

    /// A hash of nothing anyone knows, checked when a name is unknown.
    static let decoyHash = Bcrypt.hash(RandomToken.secret(), cost: bcryptCost)

    private func update(name: String, _ query: PostgresQuery) async throws -> OperatorRecord {
        guard let row = try await pool.query(query).first else { throw OperatorError.unknownOperator(name) }
        return try Self.record(row)
    }

    static let columns = "operator_id, name, role, totp_sealed IS NOT NULL, created_at, disabled_at"
    static let columnCount = 6

    static func record(_ row: PostgresRow) throws -> OperatorRecord {
        OperatorRecord(
            id: try row.decode(String.self, at: 0), name: try row.decode(String.self, at: 1),
            role: OperatorRole(rawValue: try row.decode(String.self, at: 2)) ?? .auditor,
            hasOneTimePassword: try row.decode(Bool.self, at: 3), createdAt: try row.decode(Instant.self, at: 4),
            disabledAt: try row.decode(Instant?.self, at: 5))
    }
}
