import PostgresClient

/// The WAL positions that read-your-writes across a streaming replica compares (`StatusReads` in the server): the
/// primary's position once a write committed, and whether a replica has replayed it. Here so the read path's SQL is
/// the store's, like the reads themselves.
public enum ReplicaPosition {
    /// The primary's current WAL position, as PostgreSQL writes it (`16/B374D848`).
    public static func current(on pool: PostgresPool) async throws -> String? {
        try await pool.query(prepared: "SELECT pg_current_wal_lsn()::text").first?.decode(String.self, at: 0)
    }

    /// Whether the server behind `pool` has replayed `position` (false when it is not a replica).
    public static func isReplayed(_ position: String, on pool: PostgresPool) async throws -> Bool {
        try await pool.query(prepared: "SELECT coalesce(pg_last_wal_replay_lsn() >= \(position)::pg_lsn, false)")
            .first?.decode(Bool.self, at: 0) ?? false
    }
}
