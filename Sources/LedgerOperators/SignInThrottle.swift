import UTCTime

/// How failed sign-ins slow down the next attempts of one subject (a typed name, or a source address): pure, so its
/// schedule is tested directly. The first `freeFailures` failures cost nothing; each one after that doubles the wait
/// before the next attempt is checked (1 s, 2 s, 4 s, … at most `longestWait`); the `lockAfter`-th failure in a row
/// locks the subject for `lockDuration` (an admin can lift it). Failures older than `forgetAfter` are forgotten.
package struct SignInThrottle: Sendable, Equatable {
    package static let freeFailures = 3
    package static let lockAfter = 10
    package static let longestWait: Duration = .seconds(60)
    package static let lockDuration: Duration = .seconds(15 * 60)
    package static let forgetAfter: Duration = .seconds(15 * 60)

    package var failures: Int
    package var lastFailureAt: Instant?
    package var lockedUntil: Instant?

    package init(failures: Int = 0, lastFailureAt: Instant? = nil, lockedUntil: Instant? = nil) {
        (self.failures, self.lastFailureAt, self.lockedUntil) = (failures, lastFailureAt, lockedUntil)
    }

    package enum Decision: Sendable, Equatable {
        /// Check the attempt.
        case check
        /// Refuse it unchecked: too soon after the last failure.
        case wait(until: Instant)
        /// Refuse it unchecked: locked.
        case locked(until: Instant)
    }

    /// The wait that `failures` failures impose after the last one.
    package static func wait(after failures: Int) -> Duration {
        guard failures >= freeFailures else { return .zero }
        let doublings = min(failures - freeFailures, 6)  // 2^6 s > longestWait
        return min(.seconds(1 << doublings), longestWait)
    }

    package func decide(at now: Instant) -> Decision {
        if let lockedUntil, now < lockedUntil { return .locked(until: lockedUntil) }
        guard let lastFailureAt, !isForgotten(at: now) else { return .check }
        let until = lastFailureAt.adding(Self.wait(after: failures))
        return now < until ? .wait(until: until) : .check
    }

    /// After a failed attempt at `now`.
    package mutating func failed(at now: Instant) {
        if isForgotten(at: now) || (lockedUntil.map { now >= $0 } ?? false) { self = SignInThrottle() }
        failures += 1
        lastFailureAt = now
        if failures >= Self.lockAfter { lockedUntil = now.adding(Self.lockDuration) }
    }

    func isForgotten(at now: Instant) -> Bool {
        guard let lastFailureAt, lockedUntil == nil else { return false }
        return now >= lastFailureAt.adding(Self.forgetAfter)
    }
}
