import Crypto
import LedgerStore
import PostgresClient
import Synchronization

/// The one place an app user id is stored (`ledger.identities`, schema/025): sealed (`SecretBox`) under the user's data key, found
/// from the id by a keyed blind index, and named everywhere else by a random pseudonym (`usr_…`) that says nothing
/// once the identity is erased (docs/erasure.md).
package struct IdentityStore: Sendable {
    package static let blindIndexName = "blind-index"
    package static let sealedColumns = [
        SealedColumn(table: "ledger.keyring", key: ["name"], column: "sealed"), DataKeyStore.sealedColumn
    ]

    let pool: PostgresPool
    let box: SecretBox
    let indexKey: IndexKeyCache
    let dataKeys: DataKeyCache

    package init(pool: PostgresPool, box: SecretBox) {
        self.pool = pool
        self.box = box
        self.indexKey = IndexKeyCache()
        self.dataKeys = DataKeyCache()
    }

    /// The events' personal fields, sealed under the same master key and sharing this store's key cache.
    package var fields: SealedFields { SealedFields(pool: pool, box: box, cache: dataKeys) }

    package init(pool: PostgresPool, keys: MasterKeySource) { self.init(pool: pool, box: SecretBox(keys: keys)) }

    /// The master keys this store seals under (the status signing keys derive from them too).
    package var masterKeys: MasterKeySource { box.keys }

    /// Reads the blind-index key and adopts the users named before pseudonyms (`LegacyUsers`), if not done yet: a
    /// server does it before it serves, so that no request waits for an upgrade's adoption.
    package func prepare() async throws {
        _ = try await pool.withConnection { [self] connection in try readyKey(on: connection) }
    }

    /// The blind-index key, once this process made sure the legacy users are adopted (`ready`); read once.
    func readyKey(on connection: PostgresConnection) throws -> SymmetricKey {
        try indexKey.key { try Self.ready(box: box, on: connection) }
    }

    /// The pseudonym of `user` in `app`, made (with the user's data key) the first time the user is named.
    package func pseudonym(app appID: String, user: String) async throws -> String {
        try await pseudonyms(app: appID, users: [user])[user]!
    }

    /// The pseudonyms of `users` in `app`, each made the first time its user is named: what a write puts in the log
    /// in place of the ids (`LedgerEvent.mappingUserIDs`). One connection; a transaction only for users never named.
    package func pseudonyms(app appID: String, users: some Sequence<String>) async throws -> [String: String] {
        let users = Set(users)
        guard !users.isEmpty else { return [:] }
        let box = box
        return try await pool.withConnection { [self] connection in
            let key = try readyKey(on: connection)
            var found: [String: String] = [:]
            for user in users {
                let index = Self.blindIndex(app: appID, user: user, key: key)
                found[user] =
                    try Self.find(app: appID, index: index, on: connection)
                    ?? Self.make(app: appID, user: user, index: index, indexKey: key, box: box, on: connection)
            }
            return found
        }
    }

    /// The blind index of `user` in `app` (`blindIndex(app:user:key:)` under the installation's key): how a read finds
    /// the user's pseudonym in the statement that reads their state.
    package func blindIndex(app appID: String, user: String) async throws -> [UInt8] {
        if let key = indexKey.known { return key.index(app: appID, user: user) }
        return try await pool.withConnection { [self] connection in BlindIndexKey(try readyKey(on: connection)).index(app: appID, user: user) }
    }

    /// Makes the identity of `user` (in its own transaction), or finds the one a concurrent first naming made.
    static func make(
        app appID: String, user: String, index: [UInt8], indexKey: SymmetricKey, box: SecretBox, on connection: PostgresConnection
    ) throws -> String {
        try connection.transaction { connection in
            // Two first namings of one user take turns, so they agree on one pseudonym.
            try connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(appID) || encode(\(index)::bytea, 'hex'), 25))")
            if let known = try Self.find(app: appID, index: index, on: connection) { return known }
            // An erased user named again (a notification about one of their purchases): the facts stay under the
            // erased pseudonym, and the id is not stored again (docs/erasure.md, "After erasure").
            let suppression = UserErasure.suppression(app: appID, user: user, indexKey: indexKey)
            if let erased = try connection.query(
                "SELECT pseudonym FROM ledger.erasures WHERE app_id = \(appID) AND suppression = \(suppression)::bytea"
            ).first {
                return try erased.decode(String.self, at: 0)
            }
            return try insert(app: appID, user: user, index: index, box: box, on: connection)
        }
    }

    /// A new identity of `user` (a fresh pseudonym, its data key, the id sealed under it), on the caller's connection
    /// and transaction: `make` after its checks, and the log's migration for an id only old events name.
    static func insert(app appID: String, user: String, index: [UInt8], box: SecretBox, on connection: PostgresConnection) throws -> String {
        let pseudonym = RandomToken.identifier(prefix: "usr_")
        guard let (keyID, key) = try DataKeyStore.key(app: appID, subject: "user:" + pseudonym, box: box, on: connection) else {
            throw PrivacyError.sealing("the new pseudonym's data key was destroyed as it was made")
        }
        let sealed = try SecretBox(key: key).seal(Array(user.utf8))
        try connection.query(
            """
            INSERT INTO ledger.identities (app_id, pseudonym, blind_index, sealed_user_id, key_id)
            VALUES (\(appID), \(pseudonym), \(index)::bytea, \(sealed)::bytea, \(keyID))
            """)
        return pseudonym
    }

    /// The pseudonym of `user`, if the user was named before and is not erased.
    package func find(app appID: String, user: String) async throws -> String? {
        try await pool.withConnection { [self] connection in
            try Self.find(app: appID, index: Self.blindIndex(app: appID, user: user, key: try readyKey(on: connection)), on: connection)
        }
    }

    /// The certificate of `user`'s erasure in `app`, if they were erased.
    package func erasure(app appID: String, user: String) async throws -> SignedErasureCertificate? {
        try await pool.withConnection { [self] connection in
            try UserErasure.certificate(
                app: appID, suppression: UserErasure.suppression(app: appID, user: user, indexKey: try readyKey(on: connection)), on: connection)
        }
    }

    /// The app user ids of `pseudonyms` (those unknown or erased are left out): what leaves the ledger names the user
    /// as the app does.
    package func userIDs(app appID: String, pseudonyms: some Sequence<String>) async throws -> [String: String] {
        let pseudonyms = Set(pseudonyms)
        guard !pseudonyms.isEmpty else { return [:] }
        return try await pool.withConnection { [self] connection in try userIDs(app: appID, pseudonyms: pseudonyms, on: connection) }
    }

    /// Every pseudonym of `app` with the id it stands for (erased ones left out): what a test comparing two logs of the
    /// same facts reveals them by.
    package func all(app appID: String) async throws -> [String: String] {
        let pseudonyms = try await pool.query("SELECT pseudonym FROM ledger.identities WHERE app_id = \(appID)").map {
            try $0.decode(String.self, at: 0)
        }
        return try await userIDs(app: appID, pseudonyms: pseudonyms)
    }

    /// The app user id a pseudonym stands for; nil when unknown or erased.
    package func userID(app appID: String, pseudonym: String) async throws -> String? {
        try await userIDs(app: appID, pseudonyms: [pseudonym])[pseudonym]
    }

    /// The ids the `pseudonyms` of `app` stand for (unknown and erased ones left out), on a connection the caller holds
    /// (the webhook fan-out, in its transaction): one prepared statement reads each identity with its data key. The
    /// keys are kept in this store's cache: what names a user next (a webhook body sealed for them) is sealed under it.
    package func userIDs(app appID: String, pseudonyms: Set<String>, on connection: PostgresConnection) throws -> [String: String] {
        guard !pseudonyms.isEmpty else { return [:] }
        let rows = try connection.query(
            prepared: """
                SELECT i.pseudonym, i.sealed_user_id, k.key_id, k.sealed
                FROM ledger.identities i
                JOIN ledger.data_keys k ON k.app_id = i.app_id AND k.key_id = i.key_id
                WHERE i.app_id = \(appID) AND i.pseudonym = ANY(\(TextArray(pseudonyms.sorted())))
                """)
        var found: [String: String] = [:]
        for row in rows {
            guard let sealed = try row.decode([UInt8]?.self, at: 1), let stored = try row.decode([UInt8]?.self, at: 3) else { continue }
            let (pseudonym, key) = (try row.decode(String.self, at: 0), SymmetricKey(data: try box.open(stored)))
            dataKeys.remember(app: appID, id: try row.decode(String.self, at: 2), subject: "user:" + pseudonym, key: key)
            found[pseudonym] = String(decoding: try SecretBox(key: key).open(sealed), as: UTF8.self)
        }
        return found
    }

    /// Forgets every data key this process holds: another instance erased a user, whose keys (the user's and their
    /// purchases') it may hold (`ErasureNotices`).
    package func forgetDataKeys() { dataKeys.forgetAll() }

    /// `text` sealed under the data key of the user `pseudonym` (`pii1.<key id>.<base64>`; `pii1.destroyed` once the
    /// user is erased), on a connection the caller holds: a webhook delivery's body, which names the user, is stored so
    /// (the fan-out, in its transaction) and opened by `fields.open` where it is sent or shown.
    package func sealed(_ text: String, app appID: String, pseudonym: String, on connection: PostgresConnection) throws -> String {
        let subject = "user:" + pseudonym
        if let known = dataKeys.key(app: appID, subject: subject) { return try SealedFields.seal(text, under: known) }
        let key = try DataKeyStore.key(app: appID, subject: subject, box: box, on: connection)
        if let key { dataKeys.remember(app: appID, id: key.id, subject: subject, key: key.key) }
        return try SealedFields.seal(text, under: key)
    }

    /// HMAC-SHA-256 of the app and the user id under the installation's blind-index key: equal ids give equal indexes,
    /// and without the key an index says nothing of the id.
    package static func blindIndex(app appID: String, user: String, key: SymmetricKey) -> [UInt8] {
        BlindIndexKey(key).index(app: appID, user: user)
    }

    /// The blind-index key, once the users named before pseudonyms are adopted (`LegacyUsers`): what every use of the
    /// store waits for the first time in a process.
    static func ready(box: SecretBox, on connection: PostgresConnection) throws -> SymmetricKey {
        let key = try indexKey(box: box, on: connection)
        try LegacyUsers.adopt(indexKey: key, box: box, on: connection)
        return key
    }

    /// The installation's blind-index key, made once (the first maker wins; the others read it). Read first: every
    /// lookup asks for it, and only the first ever makes one.
    static func indexKey(box: SecretBox, on connection: PostgresConnection) throws -> SymmetricKey {
        func stored() throws -> [UInt8]? {
            try connection.query("SELECT sealed FROM ledger.keyring WHERE name = \(blindIndexName)").first?.decode([UInt8].self, at: 0)
        }
        if let sealed = try stored() { return SymmetricKey(data: try box.open(sealed)) }
        let fresh = try box.seal(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
        try connection.query(
            "INSERT INTO ledger.keyring (name, sealed) VALUES (\(blindIndexName), \(fresh)::bytea) ON CONFLICT (name) DO NOTHING")
        guard let sealed = try stored() else { throw PrivacyError.sealing("the blind-index key was not stored") }
        return SymmetricKey(data: try box.open(sealed))
    }

    static func find(app appID: String, index: [UInt8], on connection: PostgresConnection) throws -> String? {
        try connection.query(
            "SELECT pseudonym FROM ledger.identities WHERE app_id = \(appID) AND blind_index = \(index)::bytea"
        ).first?.decode(String.self, at: 0)
    }
}

/// The blind-index key once read: it never changes (rotations re-seal it), so an instance reads it once.
final class IndexKeyCache: Sendable {
    private let stored = Mutex<BlindIndexKey?>(nil)

    var known: BlindIndexKey? { stored.withLock { $0 } }

    func key(_ read: () throws -> SymmetricKey) throws -> SymmetricKey {
        if let known { return known.key }
        let key = try read()
        stored.withLock { $0 = BlindIndexKey(key) }
        return key
    }
}

/// The blind-index key with its HMAC already keyed: a status read computes an index per request, and keying HMAC
/// (hashing the padded key twice) was as much work as the index itself.
struct BlindIndexKey: Sendable {
    let key: SymmetricKey
    private let keyed: HMAC<SHA256>

    init(_ key: SymmetricKey) {
        self.key = key
        self.keyed = HMAC<SHA256>(key: key)
    }

    /// HMAC-SHA-256 of the app, a zero byte and the user id.
    func index(app appID: String, user: String) -> [UInt8] {
        var mac = keyed
        mac.update(data: Array(appID.utf8))
        mac.update(data: [UInt8(0)])
        mac.update(data: Array(user.utf8))
        return Array(mac.finalize())
    }
}
