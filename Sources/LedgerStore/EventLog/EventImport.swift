import ExactJSON
import LedgerDomain
import PostgresClient
import UTCTime

/// Imports JSON Lines (the `EventExport` format, or the minimum `{"app_id", "stream", "type", "data",
/// "idempotency_key", "occurred_at"}`) through the normal append path, so importing a file twice appends nothing
/// the second time (idempotency keys).
///
/// Restore: when the log is empty and every line carries `position` and `recorded_at`, those are kept, so the
/// restored log is identical to the exported one (same hashes; a re-export is byte-for-byte the same file), and a
/// line whose recomputed hash differs from its `hash` is refused (the file was edited or is incomplete).
public struct EventImport: Sendable {
    public struct Line: Sendable {
        var appID: String
        var streamID: String
        var event: NewEvent
        var position: Int64?
        var recordedAt: Instant?
        var hash: [UInt8]?
    }

    public struct Summary: Sendable, Equatable {
        public var lines: Int
        public var appended: Int
        public var alreadyPresent: Int
        public var restoredExactly: Bool
    }

    public enum ImportError: Error, Sendable, CustomStringConvertible {
        case badLine(number: Int, reason: String)
        case hashMismatch(number: Int)

        public var description: String {
            switch self {
            case .badLine(let number, let reason): "line \(number): \(reason)"
            case .hashMismatch(let number):
                "line \(number): the restored event's hash differs from the file's; the file was edited or does not start at the "
                    + "beginning of its streams. Import it into a database that already has events to append it as new events."
            }
        }
    }

    public static func parse(line text: String, number: Int) throws(ImportError) -> Line {
        let object: JSONValue
        do { object = try JSONParser.parse(text.utf8) } catch {
            throw .badLine(number: number, reason: "not valid JSON (\(error.reason) at byte \(error.offset))")
        }
        guard object.isObject else { throw .badLine(number: number, reason: "a line must be one JSON object") }
        func string(_ key: String) throws(ImportError) -> String {
            guard let value = object[key] else { throw .badLine(number: number, reason: "\"\(key)\" is missing") }
            guard let text = value.stringValue else { throw .badLine(number: number, reason: "\"\(key)\" must be a string") }
            return text
        }
        func integer(_ key: String) -> Int64? {
            if case .number(let literal) = object[key] { return Int64(literal) }
            return nil
        }
        func timestamp(_ key: String) throws(ImportError) -> Instant {
            guard let value = Instant(rfc3339: try string(key)) else {
                throw .badLine(number: number, reason: "\"\(key)\" must be an RFC 3339 time such as 2026-11-21T10:00:00Z")
            }
            return value
        }
        // Data is re-written from the parsed value with every number's literal text unchanged.
        guard let data = object["data"], data.isObject else {
            throw .badLine(number: number, reason: "\"data\" must be a JSON object")
        }
        let metadata = object["metadata"].flatMap { $0.isObject ? JSONWriter.string($0) : nil } ?? #"{"source": "import"}"#
        let schemaVersion = integer("schema_version").flatMap { Int32(exactly: $0) } ?? 1
        let event = NewEvent(
            type: try string("type"), schemaVersion: schemaVersion, payload: JSONWriter.string(data),
            metadataJSON: metadata, idempotencyKey: try string("idempotency_key"), occurredAt: try timestamp("occurred_at"))
        return Line(
            appID: try string("app_id"), streamID: try string("stream"), event: event, position: integer("position"),
            recordedAt: object["recorded_at"] == nil ? nil : try timestamp("recorded_at"),
            hash: object["hash"]?.stringValue.flatMap(Hex.bytes))
    }
}
