import LedgerDomain
import LedgerStore
import UTCTime

/// When a failed delivery is tried again: exponential backoff from `first`, doubling up to `cap`, each delay spread
/// by ±`jitter` so that the deliveries of an endpoint that was down do not all return at once; given up when the
/// next try would fall after `window` from the first attempt (72 hours by default, then kept for redelivery).
package struct RetrySchedule: Sendable, Equatable {
    package var first: Duration
    package var cap: Duration
    package var window: Duration
    /// Fraction of each delay it may move either way (0.2: ±20%).
    package var jitter: Double

    package init(
        first: Duration = .seconds(5), cap: Duration = .seconds(6 * 3600), window: Duration = .seconds(72 * 3600),
        jitter: Double = 0.2
    ) {
        self.first = first
        self.cap = cap
        self.window = window
        self.jitter = jitter
    }

    /// The delay after the `attempt`-th failed attempt (1-based), for a random draw `unit` in [0, 1).
    package func delay(after attempt: Int, unit: Double) -> Duration {
        let doublings = min(max(attempt - 1, 0), 40)
        var base = first
        for _ in 0..<doublings where base < cap { base *= 2 }
        base = min(base, cap)
        let factor = 1 - jitter + 2 * jitter * min(max(unit, 0), 1)
        return base * factor
    }

    /// What becomes of a delivery whose `attempt`-th attempt, made at `now`, failed; the first was at `firstAttempt`.
    package func afterFailure(attempt: Int, firstAttempt: Instant, now: Instant, unit: Double) -> WebhookOutcome {
        let next = now.adding(delay(after: attempt, unit: unit))
        let end = firstAttempt.adding(window)
        return next > end ? .givenUp : .retry(at: next)
    }
}

extension Instant {
    /// This instant moved by `duration` (to the microsecond, saturating).
    func adding(_ duration: Duration) -> Instant {
        let (seconds, attoseconds) = duration.components
        return adding(microseconds: seconds.multipliedReportingOverflow(by: 1_000_000).partialValue + attoseconds / 1_000_000_000_000)
    }
}
