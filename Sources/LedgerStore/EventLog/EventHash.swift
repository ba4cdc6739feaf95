import Crypto
import LedgerDomain
import PostgresClient
import UTCTime

/// The hash chain's encoding, recomputed outside the database. It must stay byte-for-byte equal to
/// `ledger.event_hash` (current version in schema/012_append_group.sql, same encoding as 001's): SHA-256 over the
/// previous hash, then each field (text as 4-byte big-endian length + UTF-8, integers big-endian, times as epoch
/// microseconds).
public enum EventHash {
    public static let genesis = [UInt8](repeating: 0, count: 32)

    public static func compute(previousHash: [UInt8], event: RecordedEvent) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: previousHash)
        HashEncoding.text(event.appID, into: &hasher)
        HashEncoding.integer(event.position, into: &hasher)
        HashEncoding.text(event.streamID, into: &hasher)
        HashEncoding.integer(event.streamVersion, into: &hasher)
        HashEncoding.text(event.type, into: &hasher)
        HashEncoding.integer(event.schemaVersion, into: &hasher)
        HashEncoding.text(event.payload, into: &hasher)
        HashEncoding.text(event.metadata, into: &hasher)
        HashEncoding.text(event.idempotencyKey, into: &hasher)
        HashEncoding.integer(event.occurredAt.microsecondsSinceEpoch, into: &hasher)
        HashEncoding.integer(event.recordedAt.microsecondsSinceEpoch, into: &hasher)
        return Array(hasher.finalize())
    }
}

/// The length-prefixed encoding the hash chains share (the event log's and the operator record's): text as a 4-byte
/// big-endian length and its UTF-8 bytes (as the schema's hash functions write it), integers big-endian.
package enum HashEncoding {
    package static func text(_ value: String, into hasher: inout SHA256) {
        let bytes = Array(value.utf8)
        integer(Int32(bytes.count), into: &hasher)
        hasher.update(data: bytes)
    }

    package static func integer<T: FixedWidthInteger>(_ value: T, into hasher: inout SHA256) {
        hasher.update(data: BigEndian.bytes(of: value))
    }
}
