import LedgerDomain
import PostgresClient
import UTCTime

extension EventImport {
    static let chunkSize = 500
    static let windowSize = 10_000

    /// Imports `lines` (numbered from 1) on `connection`, which must belong to the schema's owner when restoring
    /// (restoring moves the position sequence past the restored positions).
    public static func run(
        lines: some Sequence<String>, on connection: PostgresConnection,
        progress: (Int) -> Void = { _ in }
    ) throws -> Summary {
        let empty = try connection.query("SELECT NOT EXISTS (SELECT 1 FROM ledger.events)").first?.decode(Bool.self, at: 0) ?? false
        var restore: Bool?
        var summary = Summary(lines: 0, appended: 0, alreadyPresent: 0, restoredExactly: false)
        // Lines are read in windows and grouped by stream (keeping each stream's order), so an interleaved file
        // still appends in batches rather than one transaction per line.
        var window: [(number: Int, line: Line)] = []

        func flush() throws {
            var order: [StreamKey] = []
            var groups: [StreamKey: [(number: Int, line: Line)]] = [:]
            for entry in window {
                let key = StreamKey(appID: entry.line.appID, streamID: entry.line.streamID)
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(entry)
            }
            for key in order {
                guard let group = groups[key] else { continue }
                for start in stride(from: 0, to: group.count, by: chunkSize) {
                    let chunk = Array(group[start..<min(start + chunkSize, group.count)])
                    if restore == true {
                        try restoreChunk(chunk, on: connection)
                        summary.appended += chunk.count
                    } else {
                        let events = chunk.map(\.line.event)
                        let result = try EventStore.append(on: connection, app: key.appID, stream: key.streamID, expected: .any, events: events)
                        summary.appended += result.appendedCount
                        summary.alreadyPresent += events.count - result.appendedCount
                    }
                }
            }
            window.removeAll(keepingCapacity: true)
            progress(summary.lines)
        }

        for (offset, text) in lines.enumerated() where !text.allSatisfy(\.isWhitespace) {
            let number = offset + 1
            let line = try parse(line: text, number: number)
            if restore == nil { restore = empty && line.position != nil && line.recordedAt != nil }
            if restore == true, line.position == nil || line.recordedAt == nil {
                throw ImportError.badLine(
                    number: number,
                    reason: "restoring needs \"position\" and \"recorded_at\" on every line, as the first line has them")
            }
            window.append((number, line))
            summary.lines += 1
            if window.count >= windowSize { try flush() }
        }
        try flush()
        if restore == true {
            try connection.execute(
                """
                SELECT setval(pg_get_serial_sequence('ledger.events', 'position'), (SELECT max(position) FROM ledger.events))
                """)
            summary.restoredExactly = true
        }
        return summary
    }

    /// Inserts events with their exported positions and recorded times, and checks each recomputed hash.
    private static func restoreChunk(_ chunk: [(number: Int, line: Line)], on connection: PostgresConnection) throws {
        let first = chunk[0].line
        let lines = chunk.map(\.line)
        try connection.transaction { connection in
            let head =
                try connection.query(
                    """
                    SELECT coalesce(max(stream_version), 0) FROM ledger.events WHERE app_id = \(first.appID) AND stream_id = \(first.streamID)
                    """
                ).first?.decode(Int64.self, at: 0) ?? 0
            let rows = try connection.query(
                """
                INSERT INTO ledger.events (position, app_id, stream_id, stream_version, event_type, schema_version, payload, metadata,
                                           idempotency_key, occurred_at, recorded_at)
                OVERRIDING SYSTEM VALUE
                SELECT e.position, \(first.appID), \(first.streamID), \(head) + e.n, e.type, e.schema_version::integer, e.payload::jsonb,
                       e.metadata::jsonb, e.key, 'epoch'::timestamptz + e.occurred * interval '1 microsecond',
                       'epoch'::timestamptz + e.recorded * interval '1 microsecond'
                FROM unnest(\(Int64Array(lines.map { $0.position ?? 0 })), \(TextArray(lines.map(\.event.type))),
                            \(Int64Array(lines.map { Int64($0.event.schemaVersion) })), \(TextArray(lines.map(\.event.payload))),
                            \(TextArray(lines.map(\.event.metadata))), \(TextArray(lines.map(\.event.idempotencyKey))),
                            \(Int64Array(lines.map(\.event.occurredAt.microsecondsSinceEpoch))),
                            \(Int64Array(lines.map { $0.recordedAt?.microsecondsSinceEpoch ?? 0 })))
                     WITH ORDINALITY AS e(position, type, schema_version, payload, metadata, key, occurred, recorded, n)
                ORDER BY e.n
                RETURNING hash
                """)
            for (index, row) in rows.enumerated() {
                if let expected = chunk[index].line.hash, try row.decode([UInt8].self, at: 0) != expected {
                    throw ImportError.hashMismatch(number: chunk[index].number)
                }
            }
        }
    }
}
