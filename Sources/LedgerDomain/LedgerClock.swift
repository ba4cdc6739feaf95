import Foundation

/// The service's one clock: every "now" (business time of a request, cookie expiry, the instant a status is
/// judged at) reads it, so all agree to the microsecond and tests can move it.
public struct LedgerClock: Sendable {
    private let read: @Sendable () -> Date

    public init(_ read: @escaping @Sendable () -> Date = { Date() }) { self.read = read }

    /// The wall clock.
    public static let system = LedgerClock()

    public func date() -> Date { read() }

    public func now() -> Instant { Instant(date()) }
}

extension Instant {
    /// `date`, truncated to the microsecond (as PostgreSQL stores it, and as Apple's milliseconds are read).
    public init(_ date: Date) {
        self.init(microsecondsSinceEpoch: Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down)))
    }
}
