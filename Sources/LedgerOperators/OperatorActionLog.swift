import PostgresClient
import UTCTime

/// The operator record (`ledger.operator_actions`, schema/023): appended to by the console, the admin API and the
/// CLI; listed and exported for auditors. The database chains each row as it is inserted.
package struct OperatorActionLog: Sendable {
    package let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    /// Appends one action; returns its row (with its place in the chain).
    @discardableResult
    package func append(
        _ action: String, target: String = "", detail: String = "", by actor: OperatorActor, at now: Instant
    ) async throws -> OperatorAction {
        let rows = try await pool.query(
            """
            INSERT INTO ledger.operator_actions
                (at, operator_id, actor, role, channel, action, target, detail, source_address, request_id, previous_hash, hash)
            VALUES (\(now), \(actor.operatorID), \(actor.name), \(actor.role), \(actor.channel.rawValue), \(action), \(target),
                    \(detail), \(actor.sourceAddress), \(actor.requestID), ''::bytea, ''::bytea)
            RETURNING \(unescaped: Self.columns)
            """)
        // INSERT … RETURNING answers the row it inserted, or throws.
        guard let row = rows.first else { throw PostgresError.decoding(column: "seq", message: "INSERT … RETURNING answered no row") }
        return try Self.decode(row)
    }

    /// Rows matching `filter`, newest first, at most `limit`.
    package func list(_ filter: OperatorActionFilter, limit: Int) async throws -> [OperatorAction] {
        let rows = try await pool.query(
            """
            SELECT \(unescaped: Self.columns) FROM ledger.operator_actions
            WHERE (\(filter.operator)::text IS NULL OR operator_id = \(filter.operator)::text OR actor = \(filter.operator)::text)
              AND (\(filter.action)::text IS NULL OR action = \(filter.action)::text)
              AND (\(filter.since)::timestamptz IS NULL OR at >= \(filter.since)::timestamptz)
              AND (\(filter.until)::timestamptz IS NULL OR at < \(filter.until)::timestamptz)
              AND (\(filter.before)::bigint IS NULL OR seq < \(filter.before)::bigint)
            ORDER BY seq DESC LIMIT \(Int64(limit))
            """)
        return try rows.map(Self.decode)
    }

    /// Rows after `seq`, oldest first (verification and export page through the whole record).
    static func page(after seq: Int64, limit: Int, on connection: PostgresConnection) throws -> [OperatorAction] {
        try connection.query(
            """
            SELECT \(unescaped: columns) FROM ledger.operator_actions WHERE seq > \(seq) ORDER BY seq LIMIT \(Int64(limit))
            """
        ).map(decode)
    }

    /// The whole record as JSON lines, oldest first, handed to `write` a page at a time (the auditor's download, from
    /// the API and the console alike), so memory holds one page however long the record.
    package func exportLines(pageSize: Int = 1_000, _ write: (String) async throws -> Void) async throws {
        var after: Int64 = 0
        while true {
            let page = try await pool.withConnection { [after] in try Self.page(after: after, limit: pageSize, on: $0) }
            guard let last = page.last else { return }
            try await write(page.map(OperatorActionJSON.line).joined())
            after = last.seq
        }
    }

    static let columns =
        "seq, at, operator_id, actor, role, channel, action, target, detail, source_address, request_id, previous_hash, hash"

    static func decode(_ row: PostgresRow) throws -> OperatorAction {
        let channel = try row.decode(String.self, at: 5)
        return OperatorAction(
            seq: try row.decode(Int64.self, at: 0), at: try row.decode(Instant.self, at: 1),
            actor: OperatorActor(
                operatorID: try row.decode(String.self, at: 2), name: try row.decode(String.self, at: 3),
                role: try row.decode(String.self, at: 4), channel: OperatorActor.Channel(rawValue: channel) ?? .console,
                sourceAddress: try row.decode(String.self, at: 9), requestID: try row.decode(String.self, at: 10)),
            action: try row.decode(String.self, at: 6), target: try row.decode(String.self, at: 7),
            detail: try row.decode(String.self, at: 8), previousHash: try row.decode([UInt8].self, at: 11),
            hash: try row.decode([UInt8].self, at: 12))
    }
}
