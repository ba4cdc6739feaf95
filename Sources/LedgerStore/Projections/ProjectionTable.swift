import Foundation
import LedgerDomain
import PostgresClient

/// The SQL of projection state: `ledger.projection_state` and `ledger.projection_checkpoints`, or their scratch
/// copies (temporary tables of the session) used by `ledger replay --check`.
public struct ProjectionTable: Sendable {
    struct StateKey: Hashable {
        var appID: String
        var key: String
    }

    let states: String
    let checkpoints: String
    /// Scratch tables belong to one session; no other instance can compete for them.
    let needsLock: Bool

    public static let live = ProjectionTable(states: "ledger.projection_state", checkpoints: "ledger.projection_checkpoints", needsLock: true)
    public static let scratch = ProjectionTable(states: "scratch_projection_state", checkpoints: "scratch_projection_checkpoints", needsLock: false)

    /// Creates the session's scratch tables (empty), shaped like the live ones.
    public static func createScratch(on connection: PostgresConnection) throws {
        try connection.execute("""
            CREATE TEMPORARY TABLE IF NOT EXISTS scratch_projection_state (LIKE ledger.projection_state INCLUDING ALL);
            CREATE TEMPORARY TABLE IF NOT EXISTS scratch_projection_checkpoints (LIKE ledger.projection_checkpoints INCLUDING ALL);
            TRUNCATE scratch_projection_state, scratch_projection_checkpoints;
            """)
    }

    func tryLock(_ projection: String, on connection: PostgresConnection) throws -> Bool {
        guard needsLock else { return true }
        return try connection.query("SELECT pg_try_advisory_xact_lock(hashtext(\("ledger.projection." + projection)))")
            .first?.decode(Bool.self, at: 0) ?? false
    }

    func checkpoint(_ projection: String, on connection: PostgresConnection) throws -> LogCheckpoint {
        let rows = try connection.query("""
            SELECT transaction_id, position FROM \(unescaped: checkpoints) WHERE projection = \(projection) FOR UPDATE
            """)
        guard let row = rows.first else { return .start }
        return LogCheckpoint(transactionID: try row.decode(UInt64.self, at: 0), position: try row.decode(Int64.self, at: 1))
    }

    func setCheckpoint(_ projection: String, _ checkpoint: LogCheckpoint, on connection: PostgresConnection) throws {
        try connection.query("""
            INSERT INTO \(unescaped: checkpoints) (projection, transaction_id, position, updated_at)
            VALUES (\(projection), \(TransactionIDValue(value: checkpoint.transactionID)), \(checkpoint.position), now())
            ON CONFLICT (projection) DO UPDATE
            SET transaction_id = EXCLUDED.transaction_id, position = EXCLUDED.position, updated_at = EXCLUDED.updated_at
            """)
    }

    func load<Reducer: ProjectionReducer>(_ reducer: Reducer.Type, keys: Set<StateKey>, on connection: PostgresConnection)
        throws -> [StateKey: Reducer.State] {
        guard !keys.isEmpty else { return [:] }
        let list = Array(keys)
        var result: [StateKey: Reducer.State] = [:]
        for row in try connection.query("""
            SELECT s.app_id, s.key, s.state FROM \(unescaped: states) s
            JOIN unnest(\(TextArray(list.map(\.appID))), \(TextArray(list.map(\.key)))) AS k(app_id, key)
              ON s.app_id = k.app_id AND s.key = k.key
            WHERE s.projection = \(Reducer.name)
            """) {
            let key = StateKey(appID: try row.decode(String.self, at: 0), key: try row.decode(String.self, at: 1))
            result[key] = try StateCodec.decode(Reducer.State.self, from: try row.decode(String.self, at: 2))
        }
        return result
    }

    func save<Reducer: ProjectionReducer>(_ reducer: Reducer.Type, states newStates: [StateKey: (state: Reducer.State, position: Int64)],
                                          on connection: PostgresConnection) throws {
        guard !newStates.isEmpty else { return }
        let entries = Array(newStates)
        let json = entries.map { StateCodec.encode($0.value.state) }
        try connection.query("""
            INSERT INTO \(unescaped: states) (app_id, projection, key, state, last_position)
            SELECT k.app_id, \(Reducer.name), k.key, k.state::jsonb, k.position
            FROM unnest(\(TextArray(entries.map(\.key.appID))), \(TextArray(entries.map(\.key.key))), \(TextArray(json)),
                        \(Int64Array(entries.map(\.value.position)))) AS k(app_id, key, state, position)
            ON CONFLICT (app_id, projection, key) DO UPDATE SET state = EXCLUDED.state, last_position = EXCLUDED.last_position
            """)
    }

    /// Empties one projection (its states and checkpoint), for a rebuild.
    func reset(_ projection: String, on connection: PostgresConnection) throws {
        try connection.query("DELETE FROM \(unescaped: states) WHERE projection = \(projection)")
        try connection.query("DELETE FROM \(unescaped: checkpoints) WHERE projection = \(projection)")
    }
}
