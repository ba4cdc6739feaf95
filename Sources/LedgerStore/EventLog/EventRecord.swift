import Foundation
import ExactJSON
import LedgerDomain
import PostgresClient
import UTCTime

/// An event to append. `payload` and `metadata` are JSON object text (stored as `jsonb`).
public struct NewEvent: Sendable, Equatable {
    public var type: String
    public var schemaVersion: Int32
    public var payload: String
    public var metadata: String
    /// Unique per app: the same key appends once, however often and however concurrently it is sent.
    public var idempotencyKey: String
    /// Business time (Apple's purchase / signed date), UTC.
    public var occurredAt: Instant

    public init(
        type: String, schemaVersion: Int32 = 1, payload: String, metadata: EventMetadata = EventMetadata(),
        idempotencyKey: String, occurredAt: Instant
    ) {
        self.init(
            type: type, schemaVersion: schemaVersion, payload: payload, metadataJSON: metadata.json,
            idempotencyKey: idempotencyKey, occurredAt: occurredAt)
    }

    public init(
        type: String, schemaVersion: Int32 = 1, payload: String, metadataJSON: String,
        idempotencyKey: String, occurredAt: Instant
    ) {
        self.type = type
        self.schemaVersion = schemaVersion
        self.payload = payload
        self.metadata = metadataJSON
        self.idempotencyKey = idempotencyKey
        self.occurredAt = occurredAt
    }
}

/// Who and what caused an event: the source (api, notification, import…), the request id, the actor.
public struct EventMetadata: Sendable, Equatable, Codable {
    public var source: String?
    public var requestID: String?
    public var actor: String?
    /// The W3C `traceparent` of the sampled trace that recorded the event (none while tracing is off or the trace was
    /// not sampled): the webhook sent for the event carries it, so the delivery joins the request's trace.
    public var traceparent: String?

    public init(source: String? = nil, requestID: String? = nil, actor: String? = nil, traceparent: String? = nil) {
        self.source = source
        self.requestID = requestID
        self.actor = actor
        self.traceparent = traceparent
    }

    enum CodingKeys: String, CodingKey {
        case source, actor, traceparent
        case requestID = "request_id"
    }

    var json: String {
        var fields: [String] = []
        if let source { fields.append("\"source\":\(JSONWriter.quoted(source))") }
        if let requestID { fields.append("\"request_id\":\(JSONWriter.quoted(requestID))") }
        if let actor { fields.append("\"actor\":\(JSONWriter.quoted(actor))") }
        if let traceparent { fields.append("\"traceparent\":\(JSONWriter.quoted(traceparent))") }
        return "{" + fields.joined(separator: ",") + "}"
    }
}

/// The version a writer expects the stream to be at (optimistic concurrency).
public enum ExpectedVersion: Sendable, Equatable {
    case any
    case noStream
    case exact(Int64)

    /// The stream version `ledger.append_events` checks: none for `.any`.
    var expectedHead: Int64? {
        switch self {
        case .any: nil
        case .noStream: 0
        case .exact(let version): version
        }
    }
}

/// What an append did. `positions` has one entry per submitted event, in order: the new position, or the
/// original one for an event whose idempotency key was already recorded.
public struct AppendResult: Sendable, Equatable {
    public var positions: [Int64]
    /// The stream's version after the append.
    public var streamVersion: Int64
    public var appendedCount: Int
    public var isDuplicate: Bool { appendedCount == 0 }
}

/// An event as stored.
public struct RecordedEvent: Sendable, Equatable {
    public var appID: String
    public var position: Int64
    public var transactionID: UInt64
    public var streamID: String
    public var streamVersion: Int64
    public var type: String
    public var schemaVersion: Int32
    public var payload: String
    public var metadata: String
    public var idempotencyKey: String
    public var occurredAt: Instant
    public var recordedAt: Instant
    public var previousHash: [UInt8]
    public var hash: [UInt8]

    public var checkpoint: LogCheckpoint { LogCheckpoint(transactionID: transactionID, position: position) }

    /// The trace that recorded it (`EventMetadata.traceparent`), decoded only when the metadata names one.
    public var traceparent: String? {
        guard metadata.contains("\"traceparent\"") else { return nil }
        return (try? JSONDecoder().decode(EventMetadata.self, from: Data(metadata.utf8)))?.traceparent
    }
}

/// Where a reader of the whole log stands: the last event it consumed, in (transaction id, position) order.
public struct LogCheckpoint: Sendable, Hashable, Comparable, Codable {
    public var transactionID: UInt64
    public var position: Int64

    public init(transactionID: UInt64, position: Int64) {
        self.transactionID = transactionID
        self.position = position
    }

    public static let start = LogCheckpoint(transactionID: 0, position: 0)

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.transactionID, lhs.position) < (rhs.transactionID, rhs.position)
    }
}

/// A transaction id bound as `xid8`.
package struct TransactionIDValue: PostgresEncodable {
    package var value: UInt64
    package var postgresValue: PostgresValue { PostgresValue(type: .xid8, bytes: BigEndian.bytes(of: value)) }

    package init(value: UInt64) { self.value = value }
}
