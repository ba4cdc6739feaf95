import Crypto
import LedgerStore
import PostgresClient
import UTCTime

/// Data keys (`ledger.data_keys`, schema/025): a 256-bit key per subject of an app (`user:<pseudonym>`,
/// `purchase:<original transaction id>`), sealed under the master key. What a key seals is unreadable once the key
/// is destroyed, which is how erasure destroys personal data without touching the log (docs/erasure.md).
package enum DataKeyStore {
    package static let sealedColumn = SealedColumn(table: "ledger.data_keys", key: ["app_id", "key_id"], column: "sealed")

    /// The key of `subject`, made when it has none; nil when it was destroyed.
    package static func key(app appID: String, subject: String, box: SecretBox, on connection: PostgresConnection) throws
        -> (id: String, key: SymmetricKey)?
    {
        let fresh = SymmetricKey(size: .bits256)
        let id = RandomToken.identifier(prefix: "dk_")
        let sealed = try box.seal(fresh.withUnsafeBytes { Array($0) })
        let made = try connection.query(
            """
            INSERT INTO ledger.data_keys (app_id, key_id, subject, sealed) VALUES (\(appID), \(id), \(subject), \(sealed)::bytea)
            ON CONFLICT (app_id, subject) DO NOTHING RETURNING key_id
            """)
        if !made.isEmpty { return (id, fresh) }
        guard
            let row = try connection.query(
                "SELECT key_id, sealed FROM ledger.data_keys WHERE app_id = \(appID) AND subject = \(subject)"
            ).first
        else { return nil }
        guard let stored = try row.decode([UInt8]?.self, at: 1) else { return nil }
        return (try row.decode(String.self, at: 0), SymmetricKey(data: try box.open(stored)))
    }

    /// The key `id`; nil when it does not exist or was destroyed.
    package static func key(app appID: String, id: String, box: SecretBox, on connection: PostgresConnection) throws -> SymmetricKey? {
        let rows = try connection.query("SELECT sealed FROM ledger.data_keys WHERE app_id = \(appID) AND key_id = \(id)")
        guard let stored = try rows.first?.decode([UInt8]?.self, at: 0) else { return nil }
        return SymmetricKey(data: try box.open(stored))
    }

    /// Destroys the keys of `subjects` that are not destroyed yet.
    package static func destroy(app appID: String, subjects: [String], at now: Instant, on connection: PostgresConnection) throws {
        guard !subjects.isEmpty else { return }
        try connection.query(
            """
            UPDATE ledger.data_keys SET sealed = NULL, destroyed_at = \(now)
            WHERE app_id = \(appID) AND subject = ANY(\(TextArray(subjects.sorted()))) AND sealed IS NOT NULL
            """)
    }

    /// Destroys the key of `subject` (the row stays, with when); whether there was a live key to destroy.
    @discardableResult
    package static func destroy(app appID: String, subject: String, at now: Instant, on connection: PostgresConnection) throws -> Bool {
        !(try connection.query(
            """
            UPDATE ledger.data_keys SET sealed = NULL, destroyed_at = \(now)
            WHERE app_id = \(appID) AND subject = \(subject) AND sealed IS NOT NULL RETURNING 1
            """
        ).isEmpty)
    }
}
