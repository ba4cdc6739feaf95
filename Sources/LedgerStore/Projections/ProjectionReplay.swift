import Foundation
import LedgerDomain
import PostgresClient

/// `ledger replay`: rebuild a projection from the log, compare a rebuild with the live state, or compute a state as
/// of an instant.
public enum ProjectionReplay {
    /// One key whose live state differs from the state rebuilt from the log.
    public struct Difference: Sendable, Equatable, CustomStringConvertible {
        public var projection: String
        public var appID: String
        public var key: String
        /// nil: the row is missing on that side.
        public var live: String?
        public var rebuilt: String?

        public var description: String {
            "\(projection) app=\(appID) key=\(key): live \(live ?? "(missing)") ≠ rebuilt \(rebuilt ?? "(missing)")"
        }
    }

    /// Empties the projection and applies the whole log again.
    public static func rebuild(_ runner: any ProjectionRunning, pool: PostgresPool,
                               progress: @escaping @Sendable (String, Int) -> Void = { _, _ in }) async throws -> Int {
        let name = runner.name
        try await pool.transaction { connection in
            guard try ProjectionTable.live.tryLock(name, on: connection) else {
                throw PostgresError.server(ServerError(sqlState: "55P03", message: "projection \(name) is being updated by another instance; retry"))
            }
            try ProjectionTable.live.reset(name, on: connection)
        }
        // Everything committed when the rebuild starts, even while another transaction holds the horizon back.
        return try await ProjectionWorker(pool: pool, runners: [runner]).catchUpThroughNow(progress: progress)
    }

    /// Rebuilds every projection into scratch tables of one session and reports each key whose state differs from
    /// the live table. The live projections are first brought up to date, so both sides cover the same events.
    public static func check(_ runners: [any ProjectionRunning], scratchRunners: [any ProjectionRunning], pool: PostgresPool,
                             progress: @escaping @Sendable (String, Int) -> Void = { _, _ in }) async throws -> [Difference] {
        // Live first, through every event committed now; the horizon has then passed them, so the scratch
        // rebuild below sees the same events (unless new ones are written meanwhile).
        try await ProjectionWorker(pool: pool, runners: runners).catchUpThroughNow()
        return try await pool.withConnection { connection in
            try ProjectionTable.createScratch(on: connection)
            for runner in scratchRunners {
                var applied = 0
                while case let count = try runner.runBatch(on: connection), count > 0 {
                    applied += count
                    progress(runner.name, applied)
                }
            }
            return try differences(on: connection, projections: runners.map(\.name))
        }
    }

    static func differences(on connection: PostgresConnection, projections: [String]) throws -> [Difference] {
        try connection.query("""
            SELECT coalesce(l.projection, s.projection), coalesce(l.app_id, s.app_id), coalesce(l.key, s.key),
                   l.state::text, s.state::text
            FROM (SELECT * FROM ledger.projection_state WHERE projection = ANY(\(TextArray(projections)))) l
            FULL JOIN scratch_projection_state s ON l.app_id = s.app_id AND l.projection = s.projection AND l.key = s.key
            WHERE l.state IS DISTINCT FROM s.state
            ORDER BY 1, 2, 3
            """).map { row in
            Difference(projection: try row.decode(String.self, at: 0), appID: try row.decode(String.self, at: 1),
                       key: try row.decode(String.self, at: 2), live: try row.decode(String?.self, at: 3),
                       rebuilt: try row.decode(String?.self, at: 4))
        }
    }

    /// The domain events of one app, in log order, recorded at or before `asOf` (all when nil).
    public static func events(app appID: String, asOf: Instant?, on connection: PostgresConnection) throws -> [DomainEvent] {
        var events: [DomainEvent] = []
        var after: Int64 = 0
        while true {
            let page = try EventStore.readByPosition(on: connection, app: appID, after: after, limit: 5_000)
            guard let last = page.last else { return events }
            events += page.compactMap(DomainEventDecoding.decode).filter { asOf == nil || $0.recordedAt <= asOf! }
            after = last.position
        }
    }
}
