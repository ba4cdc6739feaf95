import UTCTime

/// Activated subscriptions per user (seed 002): subscriptions that give access at an instant, returned until
/// they expire.
public enum ActivatedSubscriptions {
    /// The user's entitled subscriptions at `instant`, by original transaction id.
    public static func list(_ user: UserView, at instant: Instant) -> [SubscriptionSummary] {
        user.subscriptions.filter { $0.isEntitled(at: instant) }
    }
}
