import UTCTime

/// When `serve` reconciles an app, and which period a run covers: pure, so tested directly.
///
/// A run is due when none ever started, the last one started at least `interval` ago, or it failed and started at least
/// `retryAfterFailure` ago (the lease row makes one instance win it). A run covers the notifications since the start of
/// the last successful run, minus `overlap` (a
/// notification Apple signed just before that run may have been delivered, or not, just after it), and never more than
/// Apple keeps; a first run covers `firstPeriod`.
package struct ReconcileSchedule: Sendable, Equatable {
    package var interval: Duration
    /// The wait after `serve` starts before the first check (so a restart loop does not hammer Apple).
    package var firstCheckDelay: Duration
    /// How often the service checks whether a run is due.
    package var checkInterval: Duration
    package var overlap: Duration
    package var firstPeriod: Duration
    package var retryAfterFailure: Duration

    package init(
        interval: Duration = .seconds(86_400), firstCheckDelay: Duration = .seconds(60), checkInterval: Duration = .seconds(300),
        overlap: Duration = .seconds(86_400), firstPeriod: Duration = .seconds(7 * 86_400),
        retryAfterFailure: Duration = .seconds(3600)
    ) {
        self.interval = interval
        self.firstCheckDelay = firstCheckDelay
        self.checkInterval = checkInterval
        self.overlap = overlap
        self.firstPeriod = firstPeriod
        self.retryAfterFailure = retryAfterFailure
    }

    /// `lastFailed`: the last run finished and did not succeed.
    package func isDue(lastStartedAt: Instant?, lastFailed: Bool = false, now: Instant) -> Bool {
        guard let lastStartedAt else { return true }
        return lastStartedAt <= (lastFailed ? failedDueIfStartedBefore(now: now) : dueIfStartedBefore(now: now))
    }

    /// A claim succeeds when the last run started at or before this instant…
    package func dueIfStartedBefore(now: Instant) -> Instant { now.adding(.zero - interval) }

    /// …or failed and started at or before this one.
    package func failedDueIfStartedBefore(now: Instant) -> Instant { now.adding(.zero - min(retryAfterFailure, interval)) }

    /// The start of the period a run at `now` covers.
    package func periodStart(lastSuccessStartedAt: Instant?, now: Instant) -> Instant {
        let wanted = lastSuccessStartedAt.map { $0.adding(.zero - overlap) } ?? now.adding(.zero - firstPeriod)
        // A minute inside Apple's limit: the request reaches Apple a little after `now`.
        let earliest = now.adding(.seconds(60) - AppStoreReconciliation.historyLimit)
        return min(max(wanted, earliest), now.adding(.seconds(-60)))
    }
}
