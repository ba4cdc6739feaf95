import LedgerDomain
import PostgresClient
import UTCTime

/// The statements that write `ledger.events`: one append (`ledger.append_events`, current version in
/// schema/031_append_routable.sql) and a group of appends (`ledger.append_events_set`,
/// schema/034_append_group_one_statement.sql, or `ledger.append_events_one_by_one`, schema/012). The bottom of the
/// write path: `EventStore` and `GroupCommitter` run these, and nothing here calls either of them.
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

    /// Runs appends to streams of any apps in one statement and answers each one's result in order (GroupCommitter).
    /// A common group (every append with events, to a stream of its own, no key twice) goes to
    /// `ledger.append_events_set` (schema/034), which inserts all its events or, when the log holds one of its keys or
    /// an expected version does not hold, none; any other group, and one the set refused, goes to
    /// `ledger.append_events_one_by_one` (schema/012), which gives each append its own answer (as it does always with
    /// `appendByAppend`, the form Citus can route). A group of one goes to `ledger.append_events` directly. A unique
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
        var asSet = !appendByAppend && isCommon(requests)
        for _ in 0..<maximumAttempts {
            do {
                if asSet, let results = try appendSet(on: connection, requests) { return results }
                asSet = false
                return try appendOneByOneInDatabase(on: connection, requests)
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

    /// Whether a group's input allows it to be one INSERT: every append has events, no two write one stream, no key
    /// comes twice in one app. What the log holds (keys recorded, stream heads) `ledger.append_events_set` checks.
    package static func isCommon(_ requests: [(appID: String, append: EventStore.StreamAppend)]) -> Bool {
        var streams = Set<AppScopedID>(minimumCapacity: requests.count)
        var keys = Set<AppScopedID>(minimumCapacity: requests.count)
        for request in requests {
            guard !request.append.events.isEmpty, streams.insert(AppScopedID(app: request.appID, id: request.append.streamID)).inserted
            else { return false }
            for event in request.append.events {
                guard keys.insert(AppScopedID(app: request.appID, id: event.idempotencyKey)).inserted else { return false }
            }
        }
        return true
    }

    /// `ledger.append_events_set`: every event inserted, or nil when none was (a key already recorded, an expected
    /// version that does not hold).
    private static func appendSet(
        on connection: PostgresConnection, _ requests: [(appID: String, append: EventStore.StreamAppend)]
    ) throws -> [Result<AppendResult, any Error>]? {
        // Each event's append, numbered from 1.
        var owners: [Int64] = []
        for (index, request) in requests.enumerated() {
            owners.append(contentsOf: repeatElement(Int64(index + 1), count: request.append.events.count))
        }
        let rows = try groupStatement(on: connection, "ledger.append_events_set", requests, perAppendOrEvent: owners)
        if rows.isEmpty { return nil }
        guard rows.count == owners.count else {
            throw PostgresError.decoding(column: "out_key", message: "\(rows.count) rows for a group of \(owners.count) events")
        }
        return try answers(rows, requests)
    }

    /// `ledger.append_events_one_by_one`: each append run on its own inside one statement, with its own answer.
    private static func appendOneByOneInDatabase(
        on connection: PostgresConnection, _ requests: [(appID: String, append: EventStore.StreamAppend)]
    ) throws -> [Result<AppendResult, any Error>] {
        let counts = requests.map { Int64($0.append.events.count) }
        return try answers(try groupStatement(on: connection, "ledger.append_events_one_by_one", requests, perAppendOrEvent: counts), requests)
    }

    /// A group function's call: the appends' apps, streams and expected heads, `perAppendOrEvent` (what ties events
    /// to appends: each append's event count, or each event's append), then the events' columns.
    private static func groupStatement(
        on connection: PostgresConnection, _ function: StaticString, _ requests: [(appID: String, append: EventStore.StreamAppend)],
        perAppendOrEvent: [Int64]
    ) throws -> PostgresRows {
        let events = requests.flatMap(\.append.events)
        return try connection.query(
            prepared: """
                SELECT out_append, out_key, out_position, out_version, out_appended FROM \(unescaped: "\(function)")(
                    \(TextArray(requests.map(\.appID))), \(TextArray(requests.map(\.append.streamID))),
                    \(NullableInt64Array(requests.map(\.append.expected.expectedHead))), \(Int64Array(perAppendOrEvent))::integer[],
                    \(TextArray(events.map(\.type))), \(Int64Array(events.map { Int64($0.schemaVersion) })),
                    \(TextArray(events.map(\.payload))), \(TextArray(events.map(\.metadata))),
                    \(TextArray(events.map(\.idempotencyKey))), \(Int64Array(events.map(\.occurredAt.microsecondsSinceEpoch))))
                """)
    }

    /// Folds a group function's rows (each tagged with its append's number, from 1) into each append's result.
    private static func answers(
        _ rows: PostgresRows, _ requests: [(appID: String, append: EventStore.StreamAppend)]
    ) throws -> [Result<AppendResult, any Error>] {
        var perAppend = Array(repeating: AppendRows(), count: requests.count)
        for row in rows {
            let index = Int(try row.decode(Int32.self, at: 0)) - 1
            guard perAppend.indices.contains(index) else {
                throw PostgresError.decoding(column: "out_append", message: "no append \(index + 1) in a group of \(perAppend.count)")
            }
            try perAppend[index].add(row, first: 1)
        }
        return zip(requests, perAppend).map { request, rows in
            Result {
                try rows.result(
                    app: request.appID, stream: request.append.streamID, expected: request.append.expected,
                    events: request.append.events)
            }
        }
    }
}
