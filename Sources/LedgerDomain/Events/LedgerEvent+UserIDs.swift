/// Every app user id an event names, and the same event with each replaced: how pseudonyms (docs/erasure.md) go into
/// the log and come back out. Exhaustive, so a new case or a new field is decided here.
extension LedgerEvent {
    /// The app user ids the event names (a transfer names two), in field order.
    public var userIDs: [String] {
        var found: [String] = []
        _ = mappingUserIDs { id in
            found.append(id)
            return id
        }
        return found
    }

    /// The event with every app user id it names replaced by `replace`'s answer; nothing else changes. (Synchronous:
    /// a caller that looks pseudonyms up does so first, for `userIDs`.)
    public func mappingUserIDs(_ replace: (String) -> String) -> LedgerEvent {
        func ref(_ s: SubscriptionRef) -> SubscriptionRef {
            var s = s
            s.appUserID = s.appUserID.map(replace)
            return s
        }
        let event = mappingTransactionFacts { t in
            var t = t
            t.appUserID = t.appUserID.map(replace)
            return t
        }
        switch event {
        case .purchaseConsumable, .purchaseNonConsumable, .purchaseNonRenewing, .subscriptionStarted, .subscriptionRenewed,
            .billingRecovered:
            // Their user is in their transaction facts, mapped above.
            return event
        case .externalPurchase(var p):
            p.appUserID = replace(p.appUserID)
            return .externalPurchase(p)
        case .consumed(var c):
            c.appUserID = replace(c.appUserID)
            return .consumed(c)
        case .billingFailed(var e):
            e.subscription = ref(e.subscription)
            return .billingFailed(e)
        case .gracePeriodExpired(var e):
            e.subscription = ref(e.subscription)
            return .gracePeriodExpired(e)
        case .subscriptionExpired(var e):
            e.subscription = ref(e.subscription)
            return .subscriptionExpired(e)
        case .autoRenewChanged(var e):
            e.subscription = ref(e.subscription)
            return .autoRenewChanged(e)
        case .renewalPreferenceChanged(var e):
            e.subscription = ref(e.subscription)
            return .renewalPreferenceChanged(e)
        case .priceIncrease(var e):
            e.subscription = ref(e.subscription)
            return .priceIncrease(e)
        case .renewalExtended(var e):
            e.subscription = ref(e.subscription)
            return .renewalExtended(e)
        case .refunded(var e):
            e.subscription = ref(e.subscription)
            return .refunded(e)
        case .refundDeclined(var e):
            e.subscription = ref(e.subscription)
            return .refundDeclined(e)
        case .refundReversed(var e):
            e.subscription = ref(e.subscription)
            return .refundReversed(e)
        case .revoked(var e):
            e.subscription = ref(e.subscription)
            return .revoked(e)
        case .consumptionRequested(var e):
            e.subscription = ref(e.subscription)
            return .consumptionRequested(e)
        case .consumptionInformationSent, .consumptionAnswerWithheld, .appStoreNotification:
            // No user id field: the answer names the purchase; a notification record's verbatim JSON is sealed as a
            // whole instead (docs/erasure.md).
            return self
        case .consumptionConsentRecorded(var c):
            c.appUserID = replace(c.appUserID)
            return .consumptionConsentRecorded(c)
        case .grantGiven(var g):
            g.appUserID = replace(g.appUserID)
            return .grantGiven(g)
        case .grantRevoked(var r):
            r.appUserID = replace(r.appUserID)
            return .grantRevoked(r)
        case .linked(var l):
            l.appUserID = replace(l.appUserID)
            return .linked(l)
        case .transferred(var t):
            t.fromUserID = replace(t.fromUserID)
            t.toUserID = replace(t.toUserID)
            return .transferred(t)
        }
    }
}

extension LedgerEvent {
    /// The event with each of its transaction facts (a purchase's, a renewal's, an upgrade's) replaced by `transform`'s
    /// answer: what user ids and personal fields are mapped through where they sit in the facts.
    public func mappingTransactionFacts(_ transform: (TransactionFacts) -> TransactionFacts) -> LedgerEvent {
        switch self {
        case .purchaseConsumable(var p):
            p.transaction = transform(p.transaction)
            return .purchaseConsumable(p)
        case .purchaseNonConsumable(var p):
            p.transaction = transform(p.transaction)
            return .purchaseNonConsumable(p)
        case .purchaseNonRenewing(var p):
            p.transaction = transform(p.transaction)
            return .purchaseNonRenewing(p)
        case .subscriptionStarted(var s):
            s.transaction = transform(s.transaction)
            return .subscriptionStarted(s)
        case .subscriptionRenewed(var r):
            r.transaction = transform(r.transaction)
            return .subscriptionRenewed(r)
        case .billingRecovered(var r):
            r.transaction = transform(r.transaction)
            return .billingRecovered(r)
        case .renewalPreferenceChanged(var e):
            e.transaction = e.transaction.map(transform)
            return .renewalPreferenceChanged(e)
        case .externalPurchase, .consumed, .billingFailed, .gracePeriodExpired, .subscriptionExpired, .autoRenewChanged,
            .priceIncrease, .renewalExtended, .refunded, .refundDeclined, .refundReversed, .revoked, .consumptionRequested,
            .consumptionInformationSent, .consumptionAnswerWithheld, .consumptionConsentRecorded, .grantGiven, .grantRevoked,
            .linked, .transferred, .appStoreNotification:
            return self
        }
    }
}
