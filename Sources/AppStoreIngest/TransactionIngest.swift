import AppStoreVerification
import LedgerDomain
import UTCTime

/// A StoreKit 2 signed transaction (and optionally its renewal info), verified, uploaded by the SDK for the app
/// user `appUserID` → ledger events.
///
/// Produces, in order:
/// 1. the purchase by product type (`purchase.*`, or `subscription.started` / `subscription.renewed`), keyed
///    `tx:<transaction id>` like the notification carrying the same transaction, so it is recorded once;
/// 2. `transaction.refunded` (or `transaction.revoked` for Family Sharing) when `revocationDate` is set;
/// 3. from the renewal info: `subscription.auto_renew_changed` with Apple's current status,
///    `subscription.billing_failed` (with the grace period's end, if any) while Apple retries billing,
///    `subscription.price_increase` with the customer's consent when Apple reports a price increase status, and
///    `subscription.renewal_preference_changed` (downgrade) when the next period's product differs;
/// 4. `identity.linked` (source `upload`) of the original transaction id to `appUserID`, and (source
///    `appAccountToken`) to the user the app's token policy names when that is someone else.
///
/// A transaction of a product type Apple adds later yields no purchase event (there is no right one), but still
/// the link and the refund.
public struct TransactionIngest: Sendable {
    public var appAccountTokens: AppAccountTokenPolicy

    public init(appAccountTokens: AppAccountTokenPolicy = .ignore) {
        self.appAccountTokens = appAccountTokens
    }

    public func events(
        transaction: TransactionPayload, renewalInfo: RenewalInfoPayload? = nil, appUserID: String
    ) throws(IngestError) -> [LedgerEvent] {
        let facts = try TransactionFacts(transaction, appUserID: appUserID)
        return try Self.factEvents(transaction, facts, renewalInfo: renewalInfo)
            + links(facts, appUserID: appUserID, token: transaction.appAccountToken)
    }

    /// A transaction fetched from the App Store Server API (a backfill), which no app user uploaded: the facts carry
    /// the user the app's `appAccountToken` policy names, as a notification's do (so the payloads are the same
    /// whichever path records the transaction first), and the only link is that token's.
    public func events(fetched transaction: TransactionPayload, renewalInfo: RenewalInfoPayload? = nil) throws(IngestError) -> [LedgerEvent] {
        let user = appAccountTokens.appUserID(forToken: transaction.appAccountToken)
        let facts = try TransactionFacts(transaction, appUserID: user)
        var events = try Self.factEvents(transaction, facts, renewalInfo: renewalInfo)
        if let user {
            events.append(
                IdentityLinks.link(
                    user, originalTransactionID: facts.originalTransactionID, since: IdentityLinks.since(facts),
                    source: .appAccountToken))
        }
        return events
    }

    /// What the transaction (and its renewal info) says of the purchase, whoever delivered it.
    static func factEvents(_ transaction: TransactionPayload, _ facts: TransactionFacts, renewalInfo: RenewalInfoPayload?)
        throws(IngestError) -> [LedgerEvent]
    {
        let type = LedgerDomain.ProductType(appStore: transaction.type)
        var events: [LedgerEvent] = []
        if let type {
            // StoreKit cannot tell a resubscribe from an immediate upgrade: both are customer purchases on an
            // existing original transaction id. Either way the transaction is recorded under its own key.
            events.append(PurchaseEvents.event(facts, type: type, isCustomerPurchase: transaction.transactionReason == .purchase))
        }
        if let revoked = transaction.revocationDate.map(Instant.init(appStore:)) {
            events.append(Self.revocation(transaction, facts, at: revoked))
        }
        if let renewalInfo, type == .autoRenewable {
            events += try Self.renewalEvents(renewalInfo, facts)
        }
        return events
    }

    /// Family Sharing access withdrawn is a revocation; anything else with a revocation date is a refund.
    static func revocation(_ t: TransactionPayload, _ facts: TransactionFacts, at instant: Instant) -> LedgerEvent {
        let ref = PurchaseEvents.ref(facts, at: instant)
        if t.revocationType == .familyRevoke || (t.revocationType == nil && facts.familyShared) {
            return .revoked(Revocation(subscription: ref, transactionID: facts.transactionID, revocationDate: instant))
        }
        return .refunded(
            Refund(
                subscription: ref, transactionID: facts.transactionID, refundDate: instant,
                reason: t.revocationReason.map { String($0.rawValue) }))
    }

    /// Renewal info facts, stamped with the renewal info's own signing date (Apple's clock for that state, as
    /// notifications are). The auto-renew status is always recorded (a purchase alone implies "on"); the
    /// renewal preference only when the next product differs from the current one, as a deferred change
    /// (Apple's `DOWNGRADE`, which also covers deferred crossgrades).
    static func renewalEvents(_ info: RenewalInfoPayload, _ facts: TransactionFacts) throws(IngestError) -> [LedgerEvent] {
        if let other = info.originalTransactionId, other != facts.originalTransactionID {
            throw .mismatch(
                "the renewal info is for original transaction \(other), the transaction for \(facts.originalTransactionID)")
        }
        guard let signed = info.signedDate else { throw .missingField("renewalInfo.signedDate") }
        let ref = PurchaseEvents.ref(facts, at: Instant(appStore: signed))
        var events: [LedgerEvent] = []
        if let enabled = info.autoRenewStatus.flatMap(RenewalInfo.enabled) {
            events.append(.autoRenewChanged(AutoRenewChange(subscription: ref, enabled: enabled)))
        }
        // Apple is retrying a failed renewal: billing retry, with access until the grace period ends when it has one.
        if info.isInBillingRetryPeriod == true {
            events.append(
                .billingFailed(
                    BillingFailure(
                        subscription: ref, gracePeriodExpiresAt: info.gracePeriodExpiresDate.map { Instant(appStore: $0) },
                        expiresDate: facts.expiresDate)))
        }
        if let consent = info.priceIncreaseStatus.flatMap(Self.consent) {
            events.append(.priceIncrease(PriceIncrease(subscription: ref, consent: consent)))
        }
        if let next = info.autoRenewProductId, next != facts.productID {
            events.append(
                .renewalPreferenceChanged(
                    RenewalPreferenceChange(
                        subscription: ref, kind: .downgrade, autoRenewProductID: next)))
        }
        return events
    }

    /// Renewal info `priceIncreaseStatus` 0 / 1 as consent; nil for a value Apple adds later.
    static func consent(_ status: PriceIncreaseStatus) -> PriceIncreaseConsent? {
        switch status {
        case .customerHasNotResponded: .pending
        case .customerConsentedOrWasNotifiedWithoutNeedingConsent: .accepted
        default: nil
        }
    }

    /// The upload link, and the token link when the token names another user (the same user would repeat the
    /// upload link's key).
    func links(_ facts: TransactionFacts, appUserID: String, token: String?) -> [LedgerEvent] {
        let since = IdentityLinks.since(facts)
        var links = [
            IdentityLinks.link(
                appUserID, originalTransactionID: facts.originalTransactionID, since: since, source: .upload)
        ]
        if let tokenUser = appAccountTokens.appUserID(forToken: token), tokenUser != appUserID {
            links.append(
                IdentityLinks.link(
                    tokenUser, originalTransactionID: facts.originalTransactionID, since: since, source: .appAccountToken))
        }
        return links
    }
}
