import Foundation
import UTCTime

/// The service's one clock: every "now" (business time of a request, cookie expiry, the instant a status is
/// judged at) reads it, so all agree to the microsecond and tests can move it.
public struct LedgerClock: Sendable {
    private let read: @Sendable () -> Instant

    public init(_ read: @escaping @Sendable () -> Instant = { Instant(Date()) }) { self.read = read }

    /// The wall clock.
    public static let system = LedgerClock()

    public func now() -> Instant { read() }
}
