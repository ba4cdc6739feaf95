import PostgresClient

/// Whether the database is a Citus coordinator: where the log's writes and reads must keep to one worker
/// (Deploy/SCALE-OUT.md). Asked once per process by each component that behaves differently there.
enum CitusDetection {
    static func isCitus(on connection: PostgresConnection) throws -> Bool {
        try connection.query("SELECT to_regproc('pg_catalog.citus_is_coordinator') IS NOT NULL").first?.decode(Bool.self, at: 0) ?? false
    }
}
