import PostgresClient

/// One break in the hash chain, located by position.
public struct ChainProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The event's content no longer matches its hash: edited, or inserted without the ledger.
        case altered
        /// Versions are missing before this event: events were deleted.
        case removed
        /// The event does not link to the hash of the event before it: that one was replaced, or this one forged.
        case brokenLink = "broken_link"
        /// The event repeats a version of its stream: it was inserted.
        case inserted
    }

    public var kind: Kind
    public var position: Int64
    public var appID: String
    public var streamID: String
    public var streamVersion: Int64
    public var message: String

    public var description: String { "position \(position): \(message)" }
}

public struct VerificationReport: Sendable {
    public var eventsChecked: Int
    public var streams: Int
    public var problems: [ChainProblem]
    public var isIntact: Bool { problems.isEmpty }
}

/// Re-checks the whole log outside the database: every event's hash is recomputed from its stored fields
/// (`EventHash`), linked to the previous event of its stream, and stream versions must run 1, 2, 3… without gaps.
/// Works on rows a superuser edited with triggers disabled, since nothing here trusts database functions.
public struct LogVerifier: Sendable {
    public var pageSize = 5_000
    public var maximumProblems = 100

    public init() {}

    public func verify(on connection: PostgresConnection, progress: (Int) -> Void = { _ in }) throws -> VerificationReport {
        var heads: [StreamKey: (version: Int64, hash: [UInt8])] = [:]
        var problems: [ChainProblem] = []
        var checked = 0
        var after: Int64 = 0
        while problems.count < maximumProblems {
            let page = try EventStore.readByPosition(on: connection, app: nil, after: after, limit: pageSize)
            guard let last = page.last else { break }
            for event in page {
                let key = StreamKey(appID: event.appID, streamID: event.streamID)
                let head = heads[key] ?? (0, EventHash.genesis)
                if let problem = check(event, head: head) { problems.append(problem) }
                if event.streamVersion > head.version { heads[key] = (event.streamVersion, event.hash) }
            }
            checked += page.count
            after = last.position
            progress(checked)
        }
        return VerificationReport(eventsChecked: checked, streams: heads.count, problems: problems)
    }

    /// The same checks as `verify` on some streams of one app only (the console's proof for one user): each stream
    /// is read in version order from its first event, so a removed first version or a broken link shows here too.
    public func verify(app appID: String, streams: [String], on connection: PostgresConnection) throws -> VerificationReport {
        var problems: [ChainProblem] = []
        var checked = 0
        var nonEmpty = 0
        for stream in streams.sorted() {
            var head: (version: Int64, hash: [UInt8]) = (0, EventHash.genesis)
            var after: Int64 = 0
            while problems.count < maximumProblems {
                let page = try EventColumns.decode(
                    connection.query(
                        """
                        SELECT \(unescaped: EventColumns.list) FROM ledger.events
                        WHERE app_id = \(appID) AND stream_id = \(stream) AND position > \(after)
                        ORDER BY position LIMIT \(Int64(pageSize))
                        """))
                guard let last = page.last else { break }
                if after == 0 { nonEmpty += 1 }
                for event in page {
                    if let problem = check(event, head: head) { problems.append(problem) }
                    if event.streamVersion > head.version { head = (event.streamVersion, event.hash) }
                }
                checked += page.count
                after = last.position
            }
        }
        // Streams that hold events: a user's own stream is asked for whether or not it has any.
        return VerificationReport(eventsChecked: checked, streams: nonEmpty, problems: problems)
    }

    func check(_ event: RecordedEvent, head: (version: Int64, hash: [UInt8])) -> ChainProblem? {
        func problem(_ kind: ChainProblem.Kind, _ message: String) -> ChainProblem {
            ChainProblem(
                kind: kind, position: event.position, appID: event.appID, streamID: event.streamID,
                streamVersion: event.streamVersion, message: message)
        }
        let place = "stream \(event.streamID) of app \(event.appID)"
        if event.streamVersion <= head.version {
            return problem(.inserted, "\(place) already has version \(event.streamVersion); this event was inserted")
        }
        if event.streamVersion > head.version + 1 {
            let missing =
                head.version + 1 == event.streamVersion - 1
                ? "version \(head.version + 1) is" : "versions \(head.version + 1)–\(event.streamVersion - 1) are"
            return problem(.removed, "\(place): \(missing) missing before this event (version \(event.streamVersion)); events were removed")
        }
        if EventHash.compute(previousHash: event.previousHash, event: event) != event.hash {
            return problem(.altered, "\(place) version \(event.streamVersion) does not match its hash; it was altered or inserted outside the ledger")
        }
        if event.previousHash != head.hash {
            return problem(.brokenLink, "\(place) version \(event.streamVersion) does not link to version \(head.version); one of them was replaced")
        }
        return nil
    }
}

struct StreamKey: Hashable {
    var appID: String
    var streamID: String
}
