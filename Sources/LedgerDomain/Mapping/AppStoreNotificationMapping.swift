/// Notification V2 type / subtype → ledger events, deterministically.
///
/// Every notification yields `.appStoreNotification` (the verbatim record) first, then the typed facts it
/// carries. Types that change no projection (TEST, METADATA_UPDATE, MIGRATION, PRICE_CHANGE, RESCIND_CONSENT,
/// EXTERNAL_PURCHASE_TOKEN, RENEWAL_EXTENSION summaries and failures, OFFER_REDEEMED for an active subscription,
/// unknown types) and notifications missing the transaction a fact needs yield only the verbatim record; a
/// RENEWAL_EXTENSION summary's counts are typed in that record (`renewalExtensionSummary`).
///
/// Plan changes: `DID_CHANGE_RENEWAL_PREF` / `UPGRADE` takes effect at once (with a new transaction; Apple also
/// sends it for a crossgrade of equal duration), `DOWNGRADE` at the next renewal. Without a subtype, Apple sends it
/// for a crossgrade to a product of another duration, deferred to the next renewal, and for a withdrawn downgrade;
/// renewal info tells them apart: a next product other than the current one is a crossgrade, the current product
/// again is a withdrawn change.
public enum AppStoreNotificationMapping {
    public static func events(for n: DecodedNotification) -> [LedgerEvent] {
        let raw = LedgerEvent.appStoreNotification(
            AppStoreNotification(
                notificationType: n.notificationType, subtype: n.subtype, notificationUUID: n.notificationUUID,
                signedDate: n.signedDate, environment: n.environment,
                originalTransactionID: n.transaction?.originalTransactionID, rawJSON: n.rawJSON,
                renewalExtensionSummary: n.renewalExtensionSummary))
        return [raw] + typedEvents(n)
    }

    static func typedEvents(_ n: DecodedNotification) -> [LedgerEvent] {
        guard let t = n.transaction else { return [] }
        let ref = SubscriptionRef(
            appUserID: t.appUserID, productID: t.productID, originalTransactionID: t.originalTransactionID,
            subscriptionGroupID: t.subscriptionGroupID, environment: t.environment, signedDate: n.signedDate)
        let nextProduct = n.renewal?.autoRenewProductID ?? t.productID
        switch (n.notificationType, n.subtype) {
        case ("SUBSCRIBED", "RESUBSCRIBE"), ("OFFER_REDEEMED", "RESUBSCRIBE"):
            return [.subscriptionStarted(SubscriptionStarted(transaction: t, isResubscribe: true))]
        case ("SUBSCRIBED", _), ("OFFER_REDEEMED", "INITIAL_BUY"):
            return [.subscriptionStarted(SubscriptionStarted(transaction: t))]
        case ("DID_RENEW", "BILLING_RECOVERY"):
            return [.billingRecovered(Renewal(transaction: t))]
        case ("DID_RENEW", _):
            return [.subscriptionRenewed(Renewal(transaction: t))]
        case ("DID_CHANGE_RENEWAL_PREF", "UPGRADE"), ("OFFER_REDEEMED", "UPGRADE"):
            return [
                .renewalPreferenceChanged(
                    RenewalPreferenceChange(
                        subscription: ref, kind: .upgrade, autoRenewProductID: nextProduct, transaction: t))
            ]
        case ("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE"), ("OFFER_REDEEMED", "DOWNGRADE"):
            return [
                .renewalPreferenceChanged(
                    RenewalPreferenceChange(
                        subscription: ref, kind: .downgrade, autoRenewProductID: nextProduct))
            ]
        case ("DID_CHANGE_RENEWAL_PREF", _):
            return [
                .renewalPreferenceChanged(
                    RenewalPreferenceChange(
                        subscription: ref, kind: nextProduct == t.productID ? .downgradeCancelled : .crossgrade,
                        autoRenewProductID: nextProduct))
            ]
        case ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED"):
            return [.autoRenewChanged(AutoRenewChange(subscription: ref, enabled: true))]
        case ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED"):
            return [.autoRenewChanged(AutoRenewChange(subscription: ref, enabled: false))]
        case ("DID_FAIL_TO_RENEW", "GRACE_PERIOD"):
            return [
                .billingFailed(
                    BillingFailure(
                        subscription: ref, gracePeriodExpiresAt: n.renewal?.gracePeriodExpiresAt, expiresDate: t.expiresDate))
            ]
        case ("DID_FAIL_TO_RENEW", _):
            return [.billingFailed(BillingFailure(subscription: ref, expiresDate: t.expiresDate))]
        case ("GRACE_PERIOD_EXPIRED", _):
            return [.gracePeriodExpired(GracePeriodExpired(subscription: ref, expiresDate: t.expiresDate))]
        case ("EXPIRED", let subtype):
            return [.subscriptionExpired(Expiry(subscription: ref, reason: expiryReason(subtype), expiresDate: t.expiresDate))]
        case ("PRICE_INCREASE", "PENDING"):
            return [.priceIncrease(PriceIncrease(subscription: ref, consent: .pending))]
        case ("PRICE_INCREASE", "ACCEPTED"):
            return [.priceIncrease(PriceIncrease(subscription: ref, consent: .accepted))]
        case ("REFUND", _):
            return [
                .refunded(
                    Refund(
                        subscription: ref, transactionID: t.transactionID, refundDate: n.revocationDate ?? n.signedDate,
                        reason: n.revocationReason))
            ]
        case ("REFUND_DECLINED", _):
            return [.refundDeclined(RefundDeclined(subscription: ref, transactionID: t.transactionID))]
        case ("REFUND_REVERSED", _):
            return [.refundReversed(RefundReversed(subscription: ref, transactionID: t.transactionID))]
        case ("REVOKE", _):
            return [
                .revoked(
                    Revocation(
                        subscription: ref, transactionID: t.transactionID, revocationDate: n.revocationDate ?? n.signedDate))
            ]
        case ("CONSUMPTION_REQUEST", _):
            return [.consumptionRequested(ConsumptionRequest(subscription: ref, transactionID: t.transactionID))]
        case ("RENEWAL_EXTENDED", _):
            guard let newExpiry = t.expiresDate ?? n.renewal?.renewalDate else { return [] }
            return [.renewalExtended(RenewalExtension(subscription: ref, newExpiresDate: newExpiry))]
        case ("ONE_TIME_CHARGE", _):
            switch n.productType {
            case .consumable?: return [.purchaseConsumable(Purchase(transaction: t))]
            case .nonConsumable?: return [.purchaseNonConsumable(Purchase(transaction: t))]
            case .nonRenewing?: return [.purchaseNonRenewing(Purchase(transaction: t))]
            case .autoRenewable?, nil: return []
            }
        default:
            return []
        }
    }

    /// EXPIRED subtype → reason; unknown subtypes are kept verbatim.
    public static func expiryReason(_ subtype: String?) -> ExpiryReason {
        switch subtype {
        case "VOLUNTARY": .voluntary
        case "BILLING_RETRY": .billingError
        case "PRICE_INCREASE": .priceIncreaseDeclined
        case "PRODUCT_NOT_FOR_SALE": .productUnavailable
        default: .other(subtype ?? "UNSPECIFIED")
        }
    }
}
