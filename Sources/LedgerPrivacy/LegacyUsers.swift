import Crypto
import LedgerStore
import PostgresClient

/// Users the log named by their app user id before pseudonyms existed (an installation upgraded from before
/// schema 025). Each gets an identity whose pseudonym is the id itself, so that their history, streams and read-model
/// rows stay theirs and every read finds them by their blind index, as it finds everyone. Their id stays in the
/// log until the log's own migration rewrites it (docs/erasure.md, "Upgrading").
///
/// Adopted once per installation, before the first pseudonym is made or looked up (`IdentityStore` asks on its first
/// use in a process); a fresh installation has none and only records that it looked.
enum LegacyUsers {
    static let marker = "legacy-users-adopted"
    static let batch = 1_000

    static func adopt(indexKey: SymmetricKey, box: SecretBox, on connection: PostgresConnection) throws {
        func done() throws -> Bool { !(try connection.query("SELECT 1 FROM ledger.keyring WHERE name = \(marker)").isEmpty) }
        if try done() { return }
        try connection.transaction { connection in
            try connection.query("SELECT pg_advisory_xact_lock(hashtext(\(marker)))")
            if try done() { return }
            // Everyone the read models and the users' own streams name (the read models are built from the whole log
            // before anything is served), read through a cursor a batch at a time: an installation may have millions,
            // and the process that adopts them is about to serve.
            try connection.execute(
                """
                DECLARE legacy_users NO SCROLL CURSOR FOR
                SELECT app_id, owner FROM (
                    SELECT app_id, owner_app_user_id AS owner FROM ledger.subscriptions WHERE owner_app_user_id IS NOT NULL
                    UNION SELECT app_id, owner_app_user_id FROM ledger.purchases WHERE owner_app_user_id IS NOT NULL
                    UNION SELECT app_id, app_user_id FROM ledger.user_grants
                    UNION SELECT app_id, app_user_id FROM ledger.paying_users WHERE app_user_id IS NOT NULL
                    UNION SELECT app_id, substr(stream_id, 6) FROM ledger.events WHERE stream_id LIKE 'user:%'
                ) named
                WHERE NOT EXISTS (SELECT 1 FROM ledger.identities i WHERE i.app_id = named.app_id AND i.pseudonym = named.owner)
                """)
            while true {
                let rows = try connection.query(PostgresQuery(unsafeSQL: "FETCH \(batch) FROM legacy_users"))
                guard !rows.isEmpty else { break }
                let users = try rows.map { (app: try $0.decode(String.self, at: 0), id: try $0.decode(String.self, at: 1)) }
                try insert(users[...], indexKey: indexKey, box: box, on: connection)
            }
            try connection.execute("CLOSE legacy_users")
            // Sealed like every keyring row (a rotation re-seals them all), though it keeps nothing.
            try connection.query("INSERT INTO ledger.keyring (name, sealed) VALUES (\(marker), \(try box.seal([]))::bytea)")
        }
    }

    /// One statement per batch: each user's data key (sealed under the master key), and their identity with the id
    /// as pseudonym, sealed under that key.
    private static func insert(
        _ users: ArraySlice<(app: String, id: String)>, indexKey: SymmetricKey, box: SecretBox, on connection: PostgresConnection
    ) throws {
        var (apps, ids, keyIDs, sealedKeys, indexes, sealedIDs) = ([String](), [String](), [String](), [String](), [String](), [String]())
        for user in users {
            let key = SymmetricKey(size: .bits256)
            apps.append(user.app)
            ids.append(user.id)
            keyIDs.append(RandomToken.identifier(prefix: "dk_"))
            sealedKeys.append(Hex.string(try box.seal(key.withUnsafeBytes { Array($0) })))
            indexes.append(Hex.string(IdentityStore.blindIndex(app: user.app, user: user.id, key: indexKey)))
            sealedIDs.append(Hex.string(try SecretBox(key: key).seal(Array(user.id.utf8))))
        }
        try connection.query(
            """
            WITH adopted AS (
                SELECT * FROM unnest(\(TextArray(apps)), \(TextArray(ids)), \(TextArray(keyIDs)), \(TextArray(sealedKeys)),
                                     \(TextArray(indexes)), \(TextArray(sealedIDs)))
                    AS u(app_id, user_id, key_id, sealed_key, blind_index, sealed_user_id)
            ), keys AS (
                INSERT INTO ledger.data_keys (app_id, key_id, subject, sealed)
                SELECT app_id, key_id, 'user:' || user_id, decode(sealed_key, 'hex') FROM adopted
            )
            INSERT INTO ledger.identities (app_id, pseudonym, blind_index, sealed_user_id, key_id)
            SELECT app_id, user_id, decode(blind_index, 'hex'), decode(sealed_user_id, 'hex'), key_id FROM adopted
            """)
    }
}
