import Crypto
import LedgerStore
import PostgresClient

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

    package init(pool: PostgresPool, box: SecretBox) {
        self.pool = pool
        self.box = box
    }

    /// The pseudonym of `user` in `app`, made (with the user's data key) the first time the user is named.
    package func pseudonym(app appID: String, user: String) async throws -> String {
        let box = box
        return try await pool.transaction { connection in
            let index = try Self.blindIndex(app: appID, user: user, key: try Self.indexKey(box: box, on: connection))
            // Two first namings of one user take turns, so they agree on one pseudonym.
            try connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(appID) || encode(\(index)::bytea, 'hex'), 25))")
            if let known = try Self.find(app: appID, index: index, on: connection) { return known }
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
    }

    /// The pseudonym of `user`, if the user was named before and is not erased.
    package func find(app appID: String, user: String) async throws -> String? {
        let box = box
        return try await pool.withConnection { connection in
            try Self.find(app: appID, index: Self.blindIndex(app: appID, user: user, key: Self.indexKey(box: box, on: connection)), on: connection)
        }
    }

    /// The app user id a pseudonym stands for; nil when unknown or erased.
    package func userID(app appID: String, pseudonym: String) async throws -> String? {
        let box = box
        return try await pool.withConnection { connection in
            guard
                let row = try connection.query(
                    "SELECT key_id, sealed_user_id FROM ledger.identities WHERE app_id = \(appID) AND pseudonym = \(pseudonym)"
                ).first,
                let sealed = try row.decode([UInt8]?.self, at: 1),
                let key = try DataKeyStore.key(app: appID, id: try row.decode(String.self, at: 0), box: box, on: connection)
            else { return nil }
            return String(decoding: try SecretBox(key: key).open(sealed), as: UTF8.self)
        }
    }

    /// HMAC-SHA-256 of the app and the user id under the installation's blind-index key: equal ids give equal indexes,
    /// and without the key an index says nothing of the id.
    package static func blindIndex(app appID: String, user: String, key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(appID.utf8) + [0] + Array(user.utf8), using: key))
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
