import LedgerDomain
import PostgresClient
import UTCTime

/// The one place an `Instant` meets PostgreSQL's `timestamptz`: both are whole microseconds, UTC, so the conversion
/// is exact. Everything the store hands out or takes is an `Instant`.
extension Instant: PostgresEncodable, PostgresDecodable {
    public static var nullType: PostgresType { PostgresTimestamp.nullType }

    public var postgresValue: PostgresValue {
        PostgresTimestamp(microsecondsSinceEpoch: microsecondsSinceEpoch).postgresValue
    }

    public init(postgresBytes bytes: ArraySlice<UInt8>?, type: PostgresType) throws(PostgresDecodingError) {
        self.init(microsecondsSinceEpoch: try PostgresTimestamp(postgresBytes: bytes, type: type).microsecondsSinceEpoch)
    }
}
