import LedgerDomain
import PostgresClient

/// `ledger.projection_checkpoints`, and the advisory lock that makes one worker apply a projection at a time.
///
/// A checkpoint is the last event a projection applied, in the log's commit-safe order (transaction id, then
/// position). Batches apply whole transactions, so every committed event of a transaction at or below the
/// checkpoint's is applied: the read model holds exactly the events visible in the snapshot
/// `"<checkpoint transaction + 1>:<same>:"`, which is what an invoice records.
package enum ProjectionCheckpoints {
    /// The lock that one projection's writers take: a live batch (`try`, skipping when taken), a rebuild's swap and an
    /// invoice's count (waiting).
    package static func lockKey(_ projection: String) -> String { "ledger.projection." + projection }

    package static func tryLock(_ projection: String, on connection: PostgresConnection) throws -> Bool {
        try connection.query(prepared: "SELECT pg_try_advisory_xact_lock(hashtext(\(lockKey(projection))))").first?.decode(Bool.self, at: 0) ?? false
    }

    /// Waits for the projection's lock until the end of the transaction.
    package static func lock(_ projection: String, on connection: PostgresConnection) throws {
        try connection.query(prepared: "SELECT pg_advisory_xact_lock(hashtext(\(lockKey(projection))))")
    }

    package static func checkpoint(_ projection: String, on connection: PostgresConnection) throws -> LogCheckpoint {
        let rows = try connection.query(
            prepared: """
                SELECT transaction_id, position FROM ledger.projection_checkpoints WHERE projection = \(projection)
                """)
        guard let row = rows.first else { return .start }
        return LogCheckpoint(transactionID: try row.decode(UInt64.self, at: 0), position: try row.decode(Int64.self, at: 1))
    }

    /// Whether the projection has a checkpoint (it was built once, live or by a rebuild).
    package static func exists(_ projection: String, on connection: PostgresConnection) throws -> Bool {
        try !connection.query("SELECT 1 FROM ledger.projection_checkpoints WHERE projection = \(projection)").isEmpty
    }

    /// Writes the checkpoint, and holds a lock named after this transaction until the transaction has ended
    /// everywhere (`ledger.set_projection_checkpoint`, schema/036): on Citus the checkpoint commits before the read
    /// models' rows on the workers, and `visible` waits for that lock.
    package static func set(_ projection: String, _ checkpoint: LogCheckpoint, on connection: PostgresConnection) throws {
        try connection.query(
            prepared: """
                SELECT ledger.set_projection_checkpoint(\(projection), \(TransactionIDValue(value: checkpoint.transactionID)), \(checkpoint.position))
                """)
    }

    /// The checkpoints of `projections` (nil: all) for a reader that goes on to read the read models: each once the
    /// batch that wrote it is visible everywhere (`ledger.visible_projection_checkpoints`, schema/036). Columns:
    /// projection, transaction id, position.
    package static func visible(_ projections: [String]?) -> PostgresQuery {
        let names = projections.map(TextArray.init)
        return """
            SELECT out_projection, out_transaction_id, out_position FROM ledger.visible_projection_checkpoints(\(names)::text[])
            """
    }

    /// The checkpoint of a rebuild that folded every event of transactions below `cut`: past all of them, before
    /// every event of `cut` and later.
    package static func through(cut: UInt64) -> LogCheckpoint {
        cut == 0 ? .start : LogCheckpoint(transactionID: cut - 1, position: Int64.max)
    }
}
