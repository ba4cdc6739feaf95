import UTCTime

/// Expiring soon: subscriptions that give access now but will lose it within a window unless something
/// changes — auto-renew is off, or billing failed and only a grace period is left.
///
/// A subscription that will auto-renew is not "expiring", so it is not listed.
public enum ExpiringSoon {
    /// Statuses entitled at `instant` whose access ends in `(instant, instant + windowMicroseconds]` and that will
    /// not renew on their own, soonest first.
    public static func query(
        _ statuses: [SubscriptionSummary], at instant: Instant, windowMicroseconds: Int64
    ) -> [SubscriptionSummary] {
        let horizon = instant.adding(microseconds: windowMicroseconds)
        return statuses.filter { status in
            guard status.isKnown, status.isEntitled(at: instant), let end = status.accessEndsAt else { return false }
            let wontRenew: Bool =
                switch status.state {
                case .inGracePeriod?: true
                case .active?: status.autoRenew == false
                case .inBillingRetry?, .expired?, .revoked?, .refunded?, nil: false
                }
            return wontRenew && end > instant && end <= horizon
        }
        .sorted {
            ($0.accessEndsAt?.microsecondsSinceEpoch ?? .max, $0.originalTransactionID)
                < ($1.accessEndsAt?.microsecondsSinceEpoch ?? .max, $1.originalTransactionID)
        }
    }
}
