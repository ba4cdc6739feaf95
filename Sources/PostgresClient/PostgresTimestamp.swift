/// An exact `timestamptz`: microseconds since the Unix epoch, UTC, as the wire carries it.
///
/// `Date` is a Double; timestamps that feed hashes and invoices must round-trip exactly, so the client keeps
/// PostgreSQL's own integer microseconds. The ledger's modules use `Instant` (LedgerDomain); the store converts
/// once, in `Instant+Postgres.swift`.
public struct PostgresTimestamp: Hashable, Comparable, Sendable, PostgresEncodable, CustomStringConvertible {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public var microsecondsSinceEpoch: Int64

    /// PostgreSQL counts from 2000-01-01; this is that instant in Unix microseconds.
    static let postgresEpochOffset: Int64 = 946_684_800_000_000

    public init(microsecondsSinceEpoch: Int64) { self.microsecondsSinceEpoch = microsecondsSinceEpoch }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.microsecondsSinceEpoch < rhs.microsecondsSinceEpoch }

    public static var nullType: PostgresType { .timestamptz }

    public var postgresValue: PostgresValue {
        PostgresValue(type: .timestamptz, bytes: BigEndian.bytes(of: microsecondsSinceEpoch - Self.postgresEpochOffset))
    }

    public var description: String { "\(microsecondsSinceEpoch) µs since 1970-01-01T00:00:00Z" }
}
