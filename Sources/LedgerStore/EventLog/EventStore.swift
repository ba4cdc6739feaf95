import LedgerDomain
import LedgerTracing
import Logging
import Metrics
import PostgresClient
import Tracing

/// The append-only event log in `ledger.events` (SPEC §3).
///
/// Optimistic concurrency and idempotency are enforced by the table's unique keys
/// (`(app_id, stream_id, stream_version)` and `(app_id, idempotency_key)`), not by locks: a writer that loses a
/// race gets a unique violation and re-runs its append, which then finds either the winner's events (a duplicate:
/// their original positions are returned) or a newer stream version (a conflict, or a retry for `.any`).
public struct EventStore: Sendable {
    public let pool: PostgresPool
    let logger: Logger
    /// Largest batch accepted by one append (keeps one transaction's size bounded).
    public static let maximumBatch = 10_000
    /// Events written by this process (duplicates not counted), for `/metrics`. Looked up per use rather than
    /// kept: a metric made before the metrics backend is bootstrapped would stay a no-op forever.
    static var appendedCounter: Counter { Counter(label: "ledger_events_appended_total") }

    let announcer: AppendAnnouncer
    package let committer: GroupCommitter

    /// Group commit's default limits: two groups at once (one would leave the second core idle while a group
    /// commits), up to 64 appends and 5,000 events in one, and a linger of at most 300 µs for the writers a group
    /// with company has just answered (a fraction of a commit's WAL flush; `GroupCommitQueue`).
    public static let defaultGroupCommit = GroupCommitLimits(
        maximumGroups: 2, maximumAppends: 64, maximumEvents: 5_000,
        linger: .microseconds(300))

    /// `notifySpacing`: the least time between two NOTIFYs of this store's appends (`AppendAnnouncer`).
    public init(
        pool: PostgresPool, groupCommit: GroupCommitLimits = defaultGroupCommit, notifySpacing: Duration = .milliseconds(5),
        logger: Logger = Logger(label: "ledger.events")
    ) {
        self.pool = pool
        self.logger = logger
        self.announcer = AppendAnnouncer(pool: pool, spacing: notifySpacing)
        self.committer = GroupCommitter(pool: pool, limits: groupCommit)
    }

    /// Appends `events` to one stream in one transaction, then notifies listeners. Concurrent appends share a
    /// transaction (`GroupCommitter`), each with its own expected version, idempotency and error.
    public func append(
        app appID: String, stream streamID: String, expected: ExpectedVersion = .any,
        events: [NewEvent]
    ) async throws -> AppendResult {
        try await appendEach(app: appID, [StreamAppend(streamID: streamID, expected: expected, events: events)])[0].get()
    }

    /// Appends to several streams of one app, each on its own (one refused append does not undo the others) but
    /// in order and in one transaction when they all succeed. Answers each append's result.
    public func appendEach(app appID: String, _ appends: [StreamAppend]) async throws -> [Result<AppendResult, any Error>] {
        for append in appends { try EventValidation.check(appID: appID, streamID: append.streamID, events: append.events) }
        let results = await Self.traced("ledger.append", app: appID, appends) { await committer.append(app: appID, appends) }
        announce(app: appID, appended: results.reduce(0) { $0 + ((try? $1.get().appendedCount) ?? 0) })
        return results
    }

    /// Wakes projection workers and subscriptions: this process's at once (`LocalAppendSignals`), other processes'
    /// by NOTIFY (`AppendAnnouncer`: after the commit, coalesced and spaced, never inside the appending transaction,
    /// where NOTIFY would serialise every commit), and counts the events. A lost notification
    /// only delays readers until they poll.
    func announce(app appID: String, appended: Int) {
        guard appended > 0 else { return }
        LocalAppendSignals.appended(database: pool.configuration.connectionString)
        announcer.appended(app: appID)
        Self.appendedCounter.increment(by: appended)
    }

    /// One stream's part of a multi-stream append (`appendEach`, `appendAtomically`).
    public struct StreamAppend: Sendable {
        public var streamID: String
        public var expected: ExpectedVersion
        public var events: [NewEvent]
        public init(streamID: String, expected: ExpectedVersion, events: [NewEvent]) {
            self.streamID = streamID
            self.expected = expected
            self.events = events
        }
    }

    /// Appends to several streams of one app in one transaction: all or nothing (a restore that links several
    /// purchases). A conflict on any stream fails the whole append with `versionConflict`.
    public func appendAtomically(app appID: String, _ appends: [StreamAppend]) async throws -> [AppendResult] {
        for append in appends { try EventValidation.check(appID: appID, streamID: append.streamID, events: append.events) }
        let results = try await Self.traced("ledger.append_atomically", app: appID, appends) { try await appendAtomicallyOnce(app: appID, appends) }
        announce(app: appID, appended: results.reduce(0) { $0 + $1.appendedCount })
        return results
    }

    private func appendAtomicallyOnce(app appID: String, _ appends: [StreamAppend]) async throws -> [AppendResult] {
        try await pool.withConnection { connection in
            for _ in 0..<AppendStatements.maximumAttempts {
                do {
                    return try connection.transaction { connection in
                        try appends.map {
                            try AppendStatements.appendOnce(
                                on: connection, app: appID, stream: $0.streamID, expected: $0.expected,
                                events: $0.events)
                        }
                    }
                } catch let error as PostgresError where error.sqlState == ServerError.uniqueViolation {
                    continue
                }
            }
            throw EventStoreError.contention(appID: appID, streamID: appends.map(\.streamID).joined(separator: ","))
        }
    }

    /// A span for an append when a trace is current (none otherwise: an untraced append pays nothing). The app id
    /// is the tenant's, never a user's; stream ids may name users, so only their count is recorded.
    static func traced<T>(
        _ name: String, app appID: String, _ appends: [StreamAppend], _ body: () async throws -> T
    ) async rethrows -> T {
        try await TraceContext.inSpan(name) { span in
            if let span, span.isRecording {
                span.attributes["ledger.app_id"] = appID
                span.attributes["ledger.append.streams"] = appends.count
                span.attributes["ledger.append.events"] = appends.reduce(0) { $0 + $1.events.count }
            }
            return try await body()
        }
    }

    /// The synchronous append, for callers that already hold a connection (import, tests).
    public static func append(
        on connection: PostgresConnection, app appID: String, stream streamID: String,
        expected: ExpectedVersion, events: [NewEvent]
    ) throws -> AppendResult {
        try AppendStatements.append(on: connection, app: appID, stream: streamID, expected: expected, events: events)
    }

    /// The events of one stream from `version` on, in version order.
    public func readStream(
        app appID: String, stream streamID: String, fromVersion version: Int64 = 1,
        limit: Int = 10_000
    ) async throws -> [RecordedEvent] {
        try await pool.withConnection { connection in
            try EventColumns.decode(
                connection.query(
                    """
                    SELECT \(unescaped: EventColumns.list) FROM ledger.events
                    WHERE app_id = \(appID) AND stream_id = \(streamID) AND stream_version >= \(version)
                    ORDER BY stream_version LIMIT \(Int64(limit))
                    """))
        }
    }

    /// The next events of the whole log (or of one app) after `checkpoint`, in commit-safe order: only events of
    /// transactions older than every transaction still running, ordered by (transaction id, position). An event
    /// whose transaction commits after a later-numbered one is therefore delivered once it commits, never skipped.
    public func readForward(
        app appID: String? = nil, after checkpoint: LogCheckpoint = .start,
        limit: Int = 1000
    ) async throws -> [RecordedEvent] {
        try await pool.withConnection { connection in
            try Self.readForward(on: connection, app: appID, after: checkpoint, limit: limit)
        }
    }

    public static func readForward(
        on connection: PostgresConnection, app appID: String?, after checkpoint: LogCheckpoint,
        limit: Int
    ) throws -> [RecordedEvent] {
        let after = TransactionIDValue(value: checkpoint.transactionID)
        let horizon = TransactionIDValue(value: try CommitHorizon.read(on: connection))
        let query: PostgresQuery =
            if let appID {
                """
                SELECT \(unescaped: EventColumns.list) FROM ledger.events
                WHERE app_id = \(appID) AND (transaction_id, position) > (\(after), \(checkpoint.position))
                  AND transaction_id < \(horizon)
                ORDER BY transaction_id, position LIMIT \(Int64(limit))
                """
            } else {
                """
                SELECT \(unescaped: EventColumns.list) FROM ledger.events
                WHERE (transaction_id, position) > (\(after), \(checkpoint.position))
                  AND transaction_id < \(horizon)
                ORDER BY transaction_id, position LIMIT \(Int64(limit))
                """
            }
        return try EventColumns.decode(connection.query(query))
    }

    /// Events in position order after `position` (export, verification). Not commit-safe for live tailing:
    /// use `readForward` for that.
    public static func readByPosition(
        on connection: PostgresConnection, app appID: String?, after position: Int64,
        limit: Int
    ) throws -> [RecordedEvent] {
        let query: PostgresQuery =
            if let appID {
                """
                SELECT \(unescaped: EventColumns.list) FROM ledger.events WHERE app_id = \(appID) AND position > \(position)
                ORDER BY position LIMIT \(Int64(limit))
                """
            } else {
                "SELECT \(unescaped: EventColumns.list) FROM ledger.events WHERE position > \(position) ORDER BY position LIMIT \(Int64(limit))"
            }
        return try EventColumns.decode(connection.query(query))
    }

    /// How many events `readByPosition` pages through now from `position`: the total a long read reports progress
    /// against (export, verify, replay).
    public static func count(on connection: PostgresConnection, app appID: String?, after position: Int64 = 0) throws -> Int {
        let query: PostgresQuery =
            if let appID {
                "SELECT count(*) FROM ledger.events WHERE app_id = \(appID) AND position > \(position)"
            } else {
                "SELECT count(*) FROM ledger.events WHERE position > \(position)"
            }
        return Int(try connection.query(query).first?.decode(Int64.self, at: 0) ?? 0)
    }
}

/// The column list every event read uses, and its decoder (the billing module reads the log with it too).
package enum EventColumns {
    package static let list = """
        app_id, position, transaction_id, stream_id, stream_version, event_type, schema_version, payload, metadata,
        idempotency_key, occurred_at, recorded_at, previous_hash, hash
        """

    /// `list` with the payload of notification records (`appstore.notification`) left empty: for readers that
    /// only want the typed facts, which are also events of their own.
    package static let listSkippingRecords = """
        app_id, position, transaction_id, stream_id, stream_version, event_type, schema_version,
        CASE WHEN event_type = 'appstore.notification' THEN '{}'::jsonb ELSE payload END, metadata,
        idempotency_key, occurred_at, recorded_at, previous_hash, hash
        """

    package static func decode(_ rows: PostgresRows) throws -> [RecordedEvent] {
        try rows.map { row in
            RecordedEvent(
                appID: try row.decode(at: 0), position: try row.decode(at: 1), transactionID: try row.decode(at: 2),
                streamID: try row.decode(at: 3), streamVersion: try row.decode(at: 4), type: try row.decode(at: 5),
                schemaVersion: try row.decode(at: 6), payload: try row.decode(at: 7), metadata: try row.decode(at: 8),
                idempotencyKey: try row.decode(at: 9), occurredAt: try row.decode(at: 10), recordedAt: try row.decode(at: 11),
                previousHash: try row.decode(at: 12), hash: try row.decode(at: 13))
        }
    }
}
