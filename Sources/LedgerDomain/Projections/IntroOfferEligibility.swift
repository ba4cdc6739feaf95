/// Introductory-offer eligibility per user per subscription group.
///
/// Apple's rule: a customer may get an introductory offer once per subscription group, and not after having
/// subscribed in the group at all. So the user is ineligible for a group as soon as any subscription of theirs
/// in that group is known (whether or not it used an intro offer). The per-status flag
/// `usedIntroductoryOffer` is kept for reporting which offer was used.
public enum IntroOfferEligibility {
    /// Whether the user may still be offered an introductory price in `subscriptionGroupID`.
    public static func isEligible(_ user: UserView, subscriptionGroupID: String) -> Bool {
        !user.subscriptions.contains { $0.subscriptionGroupID == subscriptionGroupID }
    }

    /// Every group the user has subscribed in (and is therefore ineligible for), sorted.
    public static func ineligibleGroups(_ user: UserView) -> [String] {
        Array(Set(user.subscriptions.compactMap(\.subscriptionGroupID))).sorted()
    }
}
