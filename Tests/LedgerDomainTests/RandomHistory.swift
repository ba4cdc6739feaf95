import LedgerDomain
import UTCTime

/// A deterministic event from an integer, over a small universe (3 subscriptions, 2 one-time purchases,
/// 3 users, 120 days) so that random histories collide often: same transaction twice, refund before purchase…
func randomEvent(_ seed: Int) -> LedgerEvent {
    let kinds = 20
    let kind = seed % kinds
    let otx = ["s0", "s1", "s2"][(seed / kinds) % 3]
    let n = Int64((seed / (kinds * 3)) % 120)
    let user = ["u0", "u1", "u2"][(seed / (kinds * 3 * 120)) % 3]
    let product = ["basic", "premium", "lite"][(seed / (kinds * 9 * 120)) % 3]
    let txID = "\(otx)-\(n)"
    let t = tx(txID, otx: otx, product: product, purchased: day(n), expires: day(n + 30), signed: day(n, hours: 1))
    let r = ref(otx, product: product, signed: day(n, hours: 2))
    let one = ["c0", "c1"][(seed / kinds) % 2]
    switch kind {
    case 0:
        return .subscriptionStarted(
            SubscriptionStarted(
                transaction: {
                    var x = t; x.appUserID = user; return x
                }()))
    case 1, 2: return .subscriptionRenewed(Renewal(transaction: t))
    case 3: return .billingFailed(BillingFailure(subscription: r, gracePeriodExpiresAt: n % 2 == 0 ? day(n + 6) : nil))
    case 4: return .gracePeriodExpired(GracePeriodExpired(subscription: r))
    case 5: return .billingRecovered(Renewal(transaction: t))
    case 6: return .subscriptionExpired(Expiry(subscription: r, reason: n % 2 == 0 ? .voluntary : .billingError))
    case 7: return .autoRenewChanged(AutoRenewChange(subscription: r, enabled: n % 3 == 0))
    case 8:
        return .renewalPreferenceChanged(
            RenewalPreferenceChange(
                subscription: r, kind: [.upgrade, .downgrade, .crossgrade, .downgradeCancelled][Int(n % 4)], autoRenewProductID: "lite",
                transaction: n % 4 == 0 ? t : nil))
    case 9: return .priceIncrease(PriceIncrease(subscription: r, consent: n % 2 == 0 ? .pending : .accepted))
    case 10: return .renewalExtended(RenewalExtension(subscription: r, newExpiresDate: day(n + 40)))
    case 11: return .refunded(Refund(subscription: r, transactionID: n % 2 == 0 ? txID : one, refundDate: day(n)))
    case 12: return .refundReversed(RefundReversed(subscription: r, transactionID: txID))
    case 13: return .revoked(Revocation(subscription: r, transactionID: txID, revocationDate: day(n)))
    case 14: return .linked(TransactionLink(appUserID: user, originalTransactionIDs: [otx, one], linkedAt: day(n), source: .upload))
    case 15: return .transferred(Transfer(fromUserID: "u0", toUserID: user, originalTransactionIDs: [otx], transferredAt: day(n), policy: .transfer))
    case 16:
        return .purchaseConsumable(
            Purchase(
                transaction: tx(
                    one, product: "coins", user: user, group: nil, purchased: day(n),
                    signed: day(
                        n,
                        hours: 3))))
    case 17: return .consumed(Consumption(appUserID: user, productID: "coins", transactionID: one, originalTransactionID: one, consumedAt: day(n)))
    case 18:
        return .purchaseNonConsumable(
            Purchase(
                transaction: tx(
                    "n-" + one, product: "lifetime", user: user, group: nil,
                    env: n % 2 == 0 ? .production : .sandbox, purchased: day(n))))
    default: return .appStoreNotification(AppStoreNotification(notificationType: "TEST", notificationUUID: "\(seed)", rawJSON: "{}"))
    }
}

/// Events recorded in list order, one hour apart.
func record(_ events: [LedgerEvent]) -> [DomainEvent] {
    var log = Log()
    log.append(events)
    return log.events
}

/// The full state of the three per-key projections: what a rebuild writes.
struct AllProjections: Equatable {
    var subscriptions: [String: SubscriptionStatus]
    var purchases: [String: PurchaseRecord]
    var paying: [String: PayingPurchase]

    init(_ events: [DomainEvent], asOf: Instant? = nil) {
        subscriptions = foldAll(SubscriptionStatusReducer.self, events: events, asOf: asOf)
        purchases = foldAll(PurchaseRecordReducer.self, events: events, asOf: asOf)
        paying = foldAll(PayingUsersReducer.self, events: events, asOf: asOf)
    }

    /// Continues from this state with more events, as the live runtime does.
    func applying(_ events: [DomainEvent]) -> AllProjections {
        var next = self
        for e in events.sorted(by: { $0.position < $1.position }) {
            for key in Set(SubscriptionStatusReducer.keys(for: e)) {
                next.subscriptions[key] = SubscriptionStatusReducer.apply(next.subscriptions[key] ?? SubscriptionStatusReducer.initial(key: key), e)
            }
            for key in Set(PurchaseRecordReducer.keys(for: e)) {
                next.purchases[key] = PurchaseRecordReducer.apply(next.purchases[key] ?? PurchaseRecordReducer.initial(key: key), e)
            }
            for key in Set(PayingUsersReducer.keys(for: e)) {
                next.paying[key] = PayingUsersReducer.apply(next.paying[key] ?? PayingUsersReducer.initial(key: key), e)
            }
        }
        return next
    }
}
