import UTCTime

extension LedgerEvent {
    /// The key under which the event log appends this fact at most once per app (SPEC §3.3).
    ///
    /// The same transaction arriving by receipt upload, SDK upload and notification maps to the same key
    /// (`tx:<transaction id>`) whichever event case carries it, so it is recorded once. If the copy that lost
    /// carried an app user id the winner lacked, append an `identity.linked` event for it (its own key).
    /// Facts without a transaction of their own are keyed by kind, subscription and Apple's signing time, so
    /// Apple's retries of one notification collapse while a second refund after a reversal does not.
    public var idempotencyKey: String {
        func fact(_ type: String, _ s: SubscriptionRef, _ detail: String = "") -> String {
            "\(type):\(s.originalTransactionID):\(detail):\(s.signedDate.microsecondsSinceEpoch)"
        }
        switch self {
        case .purchaseConsumable(let p), .purchaseNonConsumable(let p), .purchaseNonRenewing(let p):
            return "tx:\(p.transaction.transactionID)"
        case .subscriptionStarted(let s): return "tx:\(s.transaction.transactionID)"
        case .subscriptionRenewed(let r), .billingRecovered(let r): return "tx:\(r.transaction.transactionID)"
        case .renewalPreferenceChanged(let c):
            if let t = c.transaction { return "tx:\(t.transactionID)" }
            return fact("subscription.renewal_preference_changed", c.subscription, c.kind.rawValue)
        case .externalPurchase(let p): return "external:\(p.provider):\(p.paymentID)"
        case .consumed(let c): return "consume:\(c.originalTransactionID)"
        case .billingFailed(let e):
            return fact("subscription.billing_failed", e.subscription, e.gracePeriodExpiresAt == nil ? "retry" : "grace")
        case .gracePeriodExpired(let e): return fact("subscription.grace_period_expired", e.subscription)
        case .subscriptionExpired(let e): return fact("subscription.expired", e.subscription, e.reason.rawValue)
        case .autoRenewChanged(let e): return fact("subscription.auto_renew_changed", e.subscription, e.enabled ? "on" : "off")
        case .priceIncrease(let e): return fact("subscription.price_increase", e.subscription, e.consent.rawValue)
        case .renewalExtended(let e):
            return fact("subscription.renewal_extended", e.subscription, "\(e.newExpiresDate.microsecondsSinceEpoch)")
        case .refunded(let e): return fact("transaction.refunded", e.subscription, e.transactionID)
        case .refundDeclined(let e): return fact("transaction.refund_declined", e.subscription, e.transactionID)
        case .refundReversed(let e): return fact("transaction.refund_reversed", e.subscription, e.transactionID)
        case .revoked(let e): return fact("transaction.revoked", e.subscription, e.transactionID)
        case .consumptionRequested(let e): return fact("transaction.consumption_requested", e.subscription, e.transactionID)
        case .consumptionInformationSent(let e): return "consumption_information:\(e.transactionID)"
        case .consumptionAnswerWithheld(let e): return "consumption_withheld:\(e.transactionID):\(e.reason.rawValue)"
        case .consumptionConsentRecorded(let c):
            return "consumption_consent:\(c.appUserID):\(c.consented):\(c.recordedAt.microsecondsSinceEpoch)"
        case .grantGiven(let g): return "grant:\(g.grantID)"
        case .grantRevoked(let r): return "grant_revoked:\(r.grantID)"
        case .linked(let l):
            return "link:\(l.appUserID):\(l.originalTransactionIDs.sorted().joined(separator: ",")):\(l.linkedAt.microsecondsSinceEpoch)"
        case .transferred(let t):
            let ids = t.originalTransactionIDs.sorted().joined(separator: ",")
            return "transfer:\(t.fromUserID):\(t.toUserID):\(ids):\(t.transferredAt.microsecondsSinceEpoch)"
        case .appStoreNotification(let n): return "notification:\(n.notificationUUID)"
        }
    }
}
