import ExactJSON
import LedgerDomain
import PostgresClient
import UTCTime

/// JSON Lines export of the log: one event per line, in position order, with everything needed to restore it
/// exactly (position, stream version, recorded time, hashes). `data` and `metadata` are written verbatim as
/// PostgreSQL stores them, so numbers keep their exact digits.
public enum EventExport {
    public static func line(for event: RecordedEvent) -> String {
        "{\"position\":\(event.position),\"app_id\":\(JSONWriter.quoted(event.appID)),\"stream\":\(JSONWriter.quoted(event.streamID)),"
            + "\"stream_version\":\(event.streamVersion),\"type\":\(JSONWriter.quoted(event.type)),\"schema_version\":\(event.schemaVersion),"
            + "\"data\":\(event.payload),\"metadata\":\(event.metadata),\"idempotency_key\":\(JSONWriter.quoted(event.idempotencyKey)),"
            + "\"occurred_at\":\"\(event.occurredAt.rfc3339)\",\"recorded_at\":\"\(event.recordedAt.rfc3339)\","
            + "\"previous_hash\":\"\(Hex.string(event.previousHash))\",\"hash\":\"\(Hex.string(event.hash))\"}"
    }

    /// Writes every event after `position` (of one app, or all) through `write`; returns how many.
    @discardableResult
    public static func export(
        on connection: PostgresConnection, app appID: String?, after position: Int64 = 0,
        write: (String) throws -> Void, progress: (Int) -> Void = { _ in }
    ) throws -> Int {
        var after = position
        var count = 0
        while true {
            let page = try EventStore.readByPosition(on: connection, app: appID, after: after, limit: 5_000)
            guard let last = page.last else { return count }
            for event in page { try write(line(for: event)) }
            count += page.count
            after = last.position
            progress(count)
        }
    }
}
