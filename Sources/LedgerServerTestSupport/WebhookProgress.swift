import PostgresClient

/// Where the webhook fan-out and the deliveries stand, read from the database (tests that wait for them).
package enum WebhookProgress {
    /// Whether the fan-out has passed the newest event and no delivery is left unsent. Three statements rather than
    /// one comparison of row values: on Citus the cursor is a coordinator table and the log is distributed.
    package static func allSent(_ pool: PostgresPool) async throws -> Bool {
        func position(_ sql: PostgresQuery) async throws -> (UInt64, Int64)? {
            try await pool.query(sql).first.map { (try $0.decode(UInt64.self, at: 0), try $0.decode(Int64.self, at: 1)) }
        }
        let cursor = try await position("SELECT transaction_id, position FROM ledger.webhook_fanout")
        let newest = try await position("SELECT transaction_id, position FROM ledger.events ORDER BY transaction_id DESC, position DESC LIMIT 1")
        let unsent = try await pool.query("SELECT EXISTS (SELECT 1 FROM ledger.webhook_deliveries WHERE status <> 'succeeded')")
        guard let cursor, let newest, try unsent.first?.decode(Bool.self, at: 0) == false else { return false }
        return cursor >= newest
    }
}
