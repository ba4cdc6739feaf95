import LedgerDomain
import Testing

@Suite("Notification V2 → ledger events")
struct NotificationMappingTests {
    static let t = tx("t1", otx: "o1", user: nil, purchased: day(1), expires: day(31), signed: day(1, hours: 1))

    func typed(
        _ type: String, _ subtype: String? = nil, productType: ProductType? = nil, renewal: RenewalInfo? = nil,
        transaction: TransactionFacts? = t
    ) -> [LedgerEvent] {
        let n = DecodedNotification(
            notificationType: type, subtype: subtype, notificationUUID: "uuid-\(type)-\(subtype ?? "")", signedDate: day(2),
            environment: .production, rawJSON: "{}", transaction: transaction, productType: productType,
            revocationDate: day(2), revocationReason: "1", renewal: renewal)
        let events = AppStoreNotificationMapping.events(for: n)
        guard case .appStoreNotification(let raw)? = events.first else {
            Issue.record("the verbatim record must come first")
            return []
        }
        #expect(raw.notificationType == type && raw.subtype == subtype)
        return Array(events.dropFirst())
    }

    var r: SubscriptionRef { SubscriptionRef(productID: "monthly", originalTransactionID: "o1", subscriptionGroupID: "g1", signedDate: day(2)) }

    @Test func subscriptionsAndRenewals() {
        #expect(typed("SUBSCRIBED", "INITIAL_BUY") == [.subscriptionStarted(SubscriptionStarted(transaction: Self.t))])
        #expect(typed("SUBSCRIBED", "RESUBSCRIBE") == [.subscriptionStarted(SubscriptionStarted(transaction: Self.t, isResubscribe: true))])
        #expect(typed("DID_RENEW") == [.subscriptionRenewed(Renewal(transaction: Self.t))])
        #expect(typed("DID_RENEW", "BILLING_RECOVERY") == [.billingRecovered(Renewal(transaction: Self.t))])
        #expect(typed("OFFER_REDEEMED", "INITIAL_BUY") == [.subscriptionStarted(SubscriptionStarted(transaction: Self.t))])
        #expect(typed("OFFER_REDEEMED").isEmpty)
    }

    @Test func renewalPreferenceAndStatus() {
        let info = RenewalInfo(autoRenewProductID: "lite")
        #expect(
            typed("DID_CHANGE_RENEWAL_PREF", "UPGRADE", renewal: info) == [
                .renewalPreferenceChanged(
                    RenewalPreferenceChange(
                        subscription: r,
                        kind: .upgrade, autoRenewProductID: "lite", transaction: Self.t))
            ])
        #expect(
            typed("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", renewal: info) == [
                .renewalPreferenceChanged(
                    RenewalPreferenceChange(
                        subscription: r,
                        kind: .downgrade, autoRenewProductID: "lite"))
            ])
        #expect(
            typed("DID_CHANGE_RENEWAL_PREF") == [
                .renewalPreferenceChanged(
                    RenewalPreferenceChange(
                        subscription: r, kind: .downgradeCancelled,
                        autoRenewProductID: "monthly"))
            ])
        // No subtype and another next product: a crossgrade to a product of another duration, at the next renewal.
        #expect(
            typed("DID_CHANGE_RENEWAL_PREF", renewal: info) == [
                .renewalPreferenceChanged(
                    RenewalPreferenceChange(
                        subscription: r,
                        kind: .crossgrade, autoRenewProductID: "lite"))
            ])
        #expect(typed("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED") == [.autoRenewChanged(AutoRenewChange(subscription: r, enabled: false))])
        #expect(typed("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED") == [.autoRenewChanged(AutoRenewChange(subscription: r, enabled: true))])
    }

    @Test func billingAndExpiry() {
        #expect(
            typed(
                "DID_FAIL_TO_RENEW", "GRACE_PERIOD",
                renewal: RenewalInfo(gracePeriodExpiresAt: day(40))) == [
                    .billingFailed(
                        BillingFailure(
                            subscription: r, gracePeriodExpiresAt: day(40),
                            expiresDate: day(31)))
                ])
        #expect(typed("DID_FAIL_TO_RENEW") == [.billingFailed(BillingFailure(subscription: r, expiresDate: day(31)))])
        #expect(typed("GRACE_PERIOD_EXPIRED") == [.gracePeriodExpired(GracePeriodExpired(subscription: r, expiresDate: day(31)))])
        for (subtype, reason) in [
            ("VOLUNTARY", ExpiryReason.voluntary), ("BILLING_RETRY", .billingError), ("PRICE_INCREASE", .priceIncreaseDeclined),
            ("PRODUCT_NOT_FOR_SALE", .productUnavailable), ("NEW_REASON", .other("NEW_REASON"))
        ] {
            #expect(typed("EXPIRED", subtype) == [.subscriptionExpired(Expiry(subscription: r, reason: reason, expiresDate: day(31)))])
        }
        #expect(typed("PRICE_INCREASE", "PENDING") == [.priceIncrease(PriceIncrease(subscription: r, consent: .pending))])
        #expect(typed("PRICE_INCREASE", "ACCEPTED") == [.priceIncrease(PriceIncrease(subscription: r, consent: .accepted))])
        #expect(typed("RENEWAL_EXTENDED") == [.renewalExtended(RenewalExtension(subscription: r, newExpiresDate: day(31)))])
    }

    @Test func refundsRevocationConsumption() {
        #expect(typed("REFUND") == [.refunded(Refund(subscription: r, transactionID: "t1", refundDate: day(2), reason: "1"))])
        #expect(typed("REFUND_DECLINED") == [.refundDeclined(RefundDeclined(subscription: r, transactionID: "t1"))])
        #expect(typed("REFUND_REVERSED") == [.refundReversed(RefundReversed(subscription: r, transactionID: "t1"))])
        #expect(typed("REVOKE") == [.revoked(Revocation(subscription: r, transactionID: "t1", revocationDate: day(2)))])
        #expect(typed("CONSUMPTION_REQUEST") == [.consumptionRequested(ConsumptionRequest(subscription: r, transactionID: "t1"))])
    }

    @Test func oneTimeCharges() {
        #expect(typed("ONE_TIME_CHARGE", productType: .consumable) == [.purchaseConsumable(Purchase(transaction: Self.t))])
        #expect(typed("ONE_TIME_CHARGE", productType: .nonConsumable) == [.purchaseNonConsumable(Purchase(transaction: Self.t))])
        #expect(typed("ONE_TIME_CHARGE", productType: .nonRenewing) == [.purchaseNonRenewing(Purchase(transaction: Self.t))])
    }

    @Test(arguments: [
        "TEST", "METADATA_UPDATE", "MIGRATION", "PRICE_CHANGE", "RESCIND_CONSENT", "EXTERNAL_PURCHASE_TOKEN", "RENEWAL_EXTENSION",
        "SOMETHING_APPLE_ADDS_IN_2027"
    ])
    func keptVerbatimOnly(_ type: String) {
        #expect(typed(type).isEmpty)
        #expect(typed(type, "SUMMARY", transaction: nil).isEmpty)
    }

    @Test func sameTransactionFromAnyChannelHasOneKey() {
        let fromNotification = typed("SUBSCRIBED", "INITIAL_BUY").first
        var uploaded = Self.t
        uploaded.appUserID = "u1"
        uploaded.signedDate = day(9)
        #expect(fromNotification?.idempotencyKey == LedgerEvent.subscriptionStarted(SubscriptionStarted(transaction: uploaded)).idempotencyKey)
        #expect(LedgerEvent.subscriptionRenewed(Renewal(transaction: uploaded)).idempotencyKey == "tx:t1")
    }

    @Test func idempotencyKeysAreDistinctAcrossSamples() {
        let keys = sampleEvents().map(\.idempotencyKey)
        // Samples reuse transaction t1 across purchase cases on purpose; facts without transactions must differ.
        let factKeys = sampleEvents().filter { !$0.idempotencyKey.hasPrefix("tx:") }.map(\.idempotencyKey)
        #expect(Set(factKeys).count == factKeys.count)
        #expect(!keys.contains(""))
    }
}
