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

    /// Every group the user has subscribed in (and is therefore ineligible for), sorted. A subscription counts in
    /// its App Store group (`subscriptionGroupIdentifier`) and in the catalog group of every product it was on
    /// (`catalogGroups`: product id → the app's name for the group), so a catalog that names groups its own way
    /// (`main`) still sees the user's history.
    public static func ineligibleGroups(_ user: UserView, catalogGroups: [String: String] = [:]) -> [String] {
        var groups = Set(user.subscriptions.compactMap(\.subscriptionGroupID))
        for subscription in user.subscriptions {
            groups.formUnion(subscription.productsEverPurchased.compactMap { catalogGroups[$0] })
        }
        return groups.sorted()
    }

    /// Eligibility in every group of the catalog and every group the user subscribed in, sorted by group.
    public static func byGroup(_ user: UserView, catalogGroups: [String: String]) -> [(group: String, eligible: Bool)] {
        let used = Set(ineligibleGroups(user, catalogGroups: catalogGroups))
        return used.union(catalogGroups.values).sorted().map { ($0, !used.contains($0)) }
    }
}
