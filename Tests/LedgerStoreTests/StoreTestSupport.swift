import LedgerDomain
import LedgerStore
import PostgresClient
import UTCTime

/// How often each index of `ledger.events` was scanned: what the plan tests assert, so that a lookup that falls back
/// to scanning an app's events is caught however fast the machine is.
enum EventIndexScans {
    /// Makes the counters of the session of `pool` (a pool of one connection) reach the shared ones: a session
    /// publishes them when it ends a transaction after asking.
    static func flush(_ pool: PostgresPool) async throws {
        try await pool.withConnection { connection in
            try connection.query("SELECT pg_stat_force_next_flush()")
            try connection.query("SELECT 1")
        }
    }

    static func reset(_ superuser: PostgresPool) async throws {
        try await superuser.query(
            """
            SELECT pg_stat_reset_single_table_counters(indexrelid) FROM pg_index WHERE indrelid = 'ledger.events'::regclass
            """)
    }

    /// Scans per index name since the last `reset`.
    static func counts(_ superuser: PostgresPool) async throws -> [String: Int64] {
        Dictionary(
            uniqueKeysWithValues: try await superuser.query(
                """
                SELECT indexrelname, idx_scan FROM pg_stat_user_indexes WHERE relid = 'ledger.events'::regclass
                """
            ).map { (try $0.decode(String.self, at: 0), try $0.decode(Int64.self, at: 1)) })
    }
}

extension EventRecorder {
    /// Records `events` for `app` one after another, the way the ingest paths do: each in its purchase stream (one
    /// per original transaction it names), under its idempotency key.
    func record(app appID: String, _ events: some Sequence<LedgerEvent>, at instant: Instant) async throws {
        for event in events {
            let appends = event.perOriginalTransaction.map {
                (LedgerStreams.purchase(originalTransactionID: $0.originalTransactionIDs.first ?? "none"), $0, $0.idempotencyKey)
            }
            _ = try await record(app: appID, appends, occurredAt: { _ in instant }, metadata: EventMetadata(source: "test"))
        }
    }
}
