/// A point in time, UTC, as whole microseconds since the Unix epoch.
///
/// Why an integer: events are replayed and compared for equality across rebuilds, machines and PostgreSQL
/// (`timestamptz` has microsecond precision). A `Double` or `Date` would round differently on each path;
/// an `Int64` of microseconds survives every one of them exactly. It encodes as the bare integer.
public struct Instant: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public var microsecondsSinceEpoch: Int64

    /// Creates an instant from microseconds since the epoch.
    public init(microsecondsSinceEpoch: Int64) {
        self.microsecondsSinceEpoch = microsecondsSinceEpoch
    }

    /// Creates an instant from whole seconds since the epoch (saturating).
    public init(secondsSinceEpoch seconds: Int64) {
        let (micros, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        self.microsecondsSinceEpoch = overflow ? (seconds < 0 ? Int64.min : Int64.max) : micros
    }

    /// Creates an instant from Apple's epoch milliseconds (the unit of every App Store date field).
    public init(epochMilliseconds: Int64) {
        self.microsecondsSinceEpoch =
            epochMilliseconds.multipliedReportingOverflow(by: 1_000).overflow
            ? (epochMilliseconds < 0 ? Int64.min : Int64.max)
            : epochMilliseconds * 1_000
    }

    /// Whole milliseconds since the epoch (truncated toward negative infinity).
    public var epochMilliseconds: Int64 {
        let (q, r) = microsecondsSinceEpoch.quotientAndRemainder(dividingBy: 1_000)
        return r < 0 ? q - 1 : q
    }

    /// This instant moved by a number of microseconds (saturating, never traps).
    public func adding(microseconds: Int64) -> Instant {
        let (sum, overflow) = microsecondsSinceEpoch.addingReportingOverflow(microseconds)
        if overflow { return Instant(microsecondsSinceEpoch: microseconds < 0 ? Int64.min : Int64.max) }
        return Instant(microsecondsSinceEpoch: sum)
    }

    /// This instant moved by whole days (86 400 s each; UTC has no daylight saving).
    public func adding(days: Int64) -> Instant {
        adding(microseconds: days.multipliedReportingOverflow(by: 86_400_000_000).partialValue)
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.microsecondsSinceEpoch < rhs.microsecondsSinceEpoch
    }

    public init(from decoder: any Decoder) throws {
        microsecondsSinceEpoch = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(microsecondsSinceEpoch)
    }

    public var description: String { CalendarMonth.isoString(self) }
}
