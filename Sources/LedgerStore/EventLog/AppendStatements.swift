import LedgerDomain
import PostgresClient

/// The statements that write `ledger.events`: one append (`ledger.append_events`, current version in
/// schema/011_append_lookup_by_key.sql) and a group of appends (`ledger.append_events_group`,
/// schema/017_append_group_set.sql). The bottom of the write path: `EventStore` and `GroupCommitter` run these,
/// and nothing here calls either of them.
package enum AppendStatements {
    /// Runs of one append or group after unique violations (a concurrent writer won a race) before giving up.
    static let maximumAttempts = 16

    /// One append in one statement (atomic by itself, so no BEGIN / COMMIT round trips). A unique violation runs it
    /// again: the next run sees the winner's events.
    static func append(
        on connection: PostgresConnection, app appID: String, stream streamID: String,
        expected: ExpectedVersion, events: [NewEvent]
    ) throws -> AppendResult {
        for _ in 0..<maximumAttempts {
            do {
                return try appendOnce(on: connection, app: appID, stream: streamID, expected: expected, events: events)
            } catch let error as PostgresError where error.sqlState == ServerError.uniqueViolation {
                continue  // a concurrent writer won; the next attempt sees its events
            } catch let error as PostgresError where error.sqlState?.hasPrefix("22") == true {
                // Data exceptions: invalid JSON, characters jsonb refuses (\u0000), out-of-range times.
                if case .server(let server) = error { throw EventStoreError.invalidEvent("PostgreSQL refused the event: \(server.message)") }
                throw error
            }
        }
        throw EventStoreError.contention(appID: appID, streamID: streamID)
    }

    /// One statement (`ledger.append_events`, schema/011): duplicates answer with their original positions, the
    /// expected version is checked, new events are inserted after the stream's head.
    static func appendOnce(
        on connection: PostgresConnection, app appID: String, stream streamID: String,
        expected: ExpectedVersion, events: [NewEvent]
    ) throws -> AppendResult {
        let expectedHead = expected.expectedHead
        var rows = AppendRows()
        for row in try connection.query(
            prepared: """
                SELECT out_key, out_position, out_version, out_appended FROM ledger.append_events(
                    \(appID), \(streamID), \(expectedHead)::bigint, \(TextArray(events.map(\.type))),
                    \(Int64Array(events.map { Int64($0.schemaVersion) })), \(TextArray(events.map(\.payload))),
                    \(TextArray(events.map(\.metadata))), \(TextArray(events.map(\.idempotencyKey))),
                    \(Int64Array(events.map(\.occurredAt.microsecondsSinceEpoch))))
                """)
        {
            try rows.add(row, first: 0)
        }
        return try rows.result(app: appID, stream: streamID, expected: expected, events: events)
    }

    /// Runs appends to streams of any apps as one statement (`ledger.append_events_group`, schema/017, or with
    /// `appendByAppend` its append-by-append form of schema/012, which Citus can route: GroupCommitter), and
    /// answers each one's result in order. A group of one goes to `ledger.append_events` directly. A unique
    /// violation (a concurrent writer outside the group won a race) runs the group again; any other error the
    /// statement raises runs the appends one by one, so that it reaches only the append that caused it. A lost
    /// connection fails them all: whether they committed is unknown.
    package static func appendGroup(
        on connection: PostgresConnection,
        _ requests: [(appID: String, append: EventStore.StreamAppend)], appendByAppend: Bool = false
    ) -> [Result<AppendResult, any Error>] {
        func oneByOne() -> [Result<AppendResult, any Error>] {
            requests.map { request in
                Result {
                    try append(
                        on: connection, app: request.appID, stream: request.append.streamID,
                        expected: request.append.expected, events: request.append.events)
                }
            }
        }
        guard requests.count > 1 else { return oneByOne() }
        let events = requests.flatMap(\.append.events)
        let function = appendByAppend ? "ledger.append_events_one_by_one" : "ledger.append_events_group"
        for _ in 0..<maximumAttempts {
            do {
                var rows = Array(repeating: AppendRows(), count: requests.count)
                for row in try connection.query(
                    prepared: """
                        SELECT out_append, out_key, out_position, out_version, out_appended FROM \(unescaped: function)(
                            \(TextArray(requests.map(\.appID))), \(TextArray(requests.map(\.append.streamID))),
                            \(NullableInt64Array(requests.map(\.append.expected.expectedHead))),
                            \(Int64Array(requests.map { Int64($0.append.events.count) }))::integer[],
                            \(TextArray(events.map(\.type))), \(Int64Array(events.map { Int64($0.schemaVersion) })),
                            \(TextArray(events.map(\.payload))), \(TextArray(events.map(\.metadata))),
                            \(TextArray(events.map(\.idempotencyKey))), \(Int64Array(events.map(\.occurredAt.microsecondsSinceEpoch))))
                        """)
                {
                    let index = Int(try row.decode(Int32.self, at: 0)) - 1
                    guard rows.indices.contains(index) else {
                        throw PostgresError.decoding(column: "out_append", message: "no append \(index + 1) in a group of \(rows.count)")
                    }
                    try rows[index].add(row, first: 1)
                }
                return zip(requests, rows).map { request, rows in
                    Result {
                        try rows.result(
                            app: request.appID, stream: request.append.streamID, expected: request.append.expected,
                            events: request.append.events)
                    }
                }
            } catch let error as PostgresError where error.sqlState == ServerError.uniqueViolation {
                continue
            } catch let error as PostgresError where error.sqlState != nil {
                return oneByOne()
            } catch {
                return Array(repeating: .failure(error), count: requests.count)
            }
        }
        return oneByOne()
    }
}
