import Foundation

/// The one crossing between `Instant` and Foundation's `Date`, for the edges that must speak `Date` (the system
/// clock, X.509 validity, HTTP dates).
extension Instant {
    /// `date`, truncated to the microsecond (as PostgreSQL stores it, and as Apple's milliseconds are read).
    public init(_ date: Date) {
        self.init(microsecondsSinceEpoch: Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down)))
    }

    /// The same instant as a `Date` (a `Double` of seconds: exact to the microsecond for any date of this era).
    public var date: Date { Date(timeIntervalSince1970: Double(microsecondsSinceEpoch) / 1_000_000) }

    /// Whole seconds since the epoch (truncated toward negative infinity), as cookies and JWT claims count them.
    public var secondsSinceEpoch: Int64 {
        let (q, r) = microsecondsSinceEpoch.quotientAndRemainder(dividingBy: 1_000_000)
        return r < 0 ? q - 1 : q
    }

    /// This instant moved by `duration` (saturating, to the microsecond).
    public func adding(_ duration: Duration) -> Instant {
        let (seconds, attoseconds) = duration.components
        return adding(microseconds: seconds.multipliedReportingOverflow(by: 1_000_000).partialValue + attoseconds / 1_000_000_000_000)
    }
}
