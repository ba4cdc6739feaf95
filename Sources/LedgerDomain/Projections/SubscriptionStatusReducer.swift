import UTCTime

/// Reducer of `SubscriptionStatus`, keyed by original transaction id. Table / checkpoint name
/// `subscription_status`.
///
/// One-time purchases never create a status; refunds, revocations, links and transfers name an original
/// transaction id without saying whether it is a subscription, so they may leave a status with
/// `isKnown == false` for a one-time purchase: queries skip those.
public enum SubscriptionStatusReducer: ProjectionReducer {
    public typealias State = SubscriptionStatus

    public static let name = "subscription_status"

    public static func keys(for event: DomainEvent) -> [String] {
        switch event.event {
        case .purchaseConsumable, .purchaseNonConsumable, .purchaseNonRenewing, .externalPurchase, .consumed,
            .refundDeclined, .consumptionRequested, .consumptionInformationSent, .consumptionAnswerWithheld, .consumptionConsentRecorded, .grantGiven,
            .grantRevoked,
            .appStoreNotification:
            return []
        case .subscriptionStarted, .subscriptionRenewed, .billingRecovered, .billingFailed, .gracePeriodExpired,
            .subscriptionExpired, .autoRenewChanged, .renewalPreferenceChanged, .priceIncrease, .renewalExtended,
            .refunded, .refundReversed, .revoked, .linked, .transferred:
            return uniqueSorted(event.event.originalTransactionIDs)
        }
    }

    public static func initial(key: String) -> SubscriptionStatus {
        SubscriptionStatus(originalTransactionID: key)
    }

    public static func apply(_ s: inout SubscriptionStatus, _ event: DomainEvent) {
        s.owner = OwnerClaim.merge(s.owner, event.event.ownerClaim)
        switch event.event {
        case .purchaseConsumable, .purchaseNonConsumable, .purchaseNonRenewing, .externalPurchase, .consumed,
            .refundDeclined, .consumptionRequested, .consumptionInformationSent, .consumptionAnswerWithheld, .consumptionConsentRecorded, .grantGiven,
            .grantRevoked,
            .appStoreNotification, .linked, .transferred:
            break
        case .subscriptionStarted(let e):
            s.record(e.transaction)
        case .subscriptionRenewed(let e), .billingRecovered(let e):
            s.record(e.transaction)
        case .billingFailed(let e):
            let grace = e.gracePeriodExpiresAt
            s.setLifecycle(
                .init(state: grace == nil ? .inBillingRetry : .inGracePeriod, graceExpiresAt: grace, periodEndsAt: e.expiresDate),
                Stamp(at: e.subscription.signedDate, rank: 1, tie: grace.map { "\($0.microsecondsSinceEpoch)" } ?? ""))
        case .gracePeriodExpired(let e):
            s.setLifecycle(.init(state: .inBillingRetry, periodEndsAt: e.expiresDate), Stamp(at: e.subscription.signedDate, rank: 2))
        case .subscriptionExpired(let e):
            s.setLifecycle(
                .init(state: .expired(e.reason), periodEndsAt: e.expiresDate),
                Stamp(
                    at: e.subscription.signedDate, rank: 3,
                    tie: e.reason.rawValue))
        case .autoRenewChanged(let e):
            s.autoRenew = .merge(s.autoRenew, e.enabled, Stamp(at: e.subscription.signedDate, rank: 1, tie: e.enabled ? "on" : "off"))
        case .renewalPreferenceChanged(let e):
            if let transaction = e.transaction { s.record(transaction) }
            let pending: String? =
                switch e.kind {
                case .downgradeCancelled, .upgrade: nil
                case .downgrade, .crossgrade:
                    e.transaction == nil && e.autoRenewProductID != e.subscription.productID ? e.autoRenewProductID : nil
                }
            s.nextProduct = .merge(s.nextProduct, pending, Stamp(at: e.subscription.signedDate, rank: 1, tie: pending ?? ""))
        case .priceIncrease(let e):
            s.priceIncrease = .merge(
                s.priceIncrease, e.consent,
                Stamp(at: e.subscription.signedDate, rank: e.consent == .accepted ? 1 : 0, tie: e.consent.rawValue))
        case .renewalExtended(let e):
            s.extendedExpiresAt = .merge(
                s.extendedExpiresAt, e.newExpiresDate,
                Stamp(at: e.subscription.signedDate, tie: "\(e.newExpiresDate.microsecondsSinceEpoch)"))
        case .refunded(let e):
            s.setStanding(e.transactionID, .refunded, Stamp(at: e.subscription.signedDate, rank: 1, tie: "refunded"))
        case .revoked(let e):
            s.setStanding(e.transactionID, .revoked, Stamp(at: e.subscription.signedDate, rank: 1, tie: "revoked"))
        case .refundReversed(let e):
            s.setStanding(e.transactionID, .valid, Stamp(at: e.subscription.signedDate, rank: 2, tie: "valid"))
        }
    }
}

extension SubscriptionStatus {
    /// Applies a transaction: it may become the latest, it makes the subscription active as of its purchase date,
    /// implies auto-renew was on, and settles any pending product change made before it.
    mutating func record(_ t: TransactionFacts) {
        let stamp = Stamp(at: t.purchaseDate, rank: 0, tie: t.transactionID)
        let freshest = Stamp(at: t.purchaseDate, rank: 0, tie: t.transactionID + "|" + paddedMicros(t.signedDate))
        latestTransaction = .merge(latestTransaction, t, freshest)
        setLifecycle(.init(state: .active), stamp)
        autoRenew = .merge(autoRenew, true, stamp)
        nextProduct = .merge(nextProduct, nil, stamp)
        if !productsEverPurchased.contains(t.productID) {
            productsEverPurchased = (productsEverPurchased + [t.productID]).sorted()
        }
        if t.offer?.type == .introductory { usedIntroductoryOffer = true }
        activatedAt = activatedAt.map { min($0, t.purchaseDate) } ?? t.purchaseDate
    }

    mutating func setLifecycle(_ value: Lifecycle, _ stamp: Stamp) {
        lifecycle = .merge(lifecycle, value, stamp)
    }

    mutating func setStanding(_ transactionID: String, _ standing: TransactionStanding, _ stamp: Stamp) {
        standings[transactionID] = .merge(standings[transactionID], standing, stamp)
    }
}

/// Keys once each, in a stable order.
func uniqueSorted(_ keys: [String]) -> [String] {
    Array(Set(keys)).sorted()
}

/// An instant as fixed-width text, so that text order is time order in stamp tie-breaks.
func paddedMicros(_ instant: Instant) -> String {
    let v = instant.microsecondsSinceEpoch
    let digits = String(v.magnitude)
    return (v < 0 ? "-" : "+") + String(repeating: "0", count: max(0, 20 - digits.count)) + digits
}
