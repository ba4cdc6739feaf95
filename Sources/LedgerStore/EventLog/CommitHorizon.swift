import PostgresClient

/// The log's commit horizon: the oldest transaction still running, so every transaction below it has ended and none
/// can commit below it later. Events are read in commit-safe order up to it (projections, live streams, digests).
///
/// A statement of its own rather than inlined in a read: on Citus (Deploy/SCALE-OUT.md) a read of the events runs on
/// the workers, and Citus evaluates `pg_current_snapshot()` there, while the events' transaction ids are the
/// coordinator's. This statement runs where the connection is: on the coordinator.
package enum CommitHorizon {
    package static func read(on connection: PostgresConnection) throws -> UInt64 {
        try connection.query("SELECT pg_snapshot_xmin(pg_current_snapshot())").first?.decode(UInt64.self, at: 0) ?? 0
    }
}
