import LedgerDomain

/// One (or more) sample of every `LedgerEvent` case, with every optional field set somewhere.
func sampleEvents() -> [LedgerEvent] {
    let full = TransactionFacts(
        appUserID: "u1", productID: "monthly", transactionID: "t1", originalTransactionID: "o1",
        subscriptionGroupID: "g1", environment: .sandbox, purchaseDate: day(1), originalPurchaseDate: day(0),
        expiresDate: day(31), signedDate: day(1, hours: 1), price: Money(milliunits: 9_990, currency: "USD"),
        offer: Offer(type: .promotional, identifier: "p1", paymentMode: "PAY_UP_FRONT", period: "P3M"), familyShared: true,
        developerPayload: "payload \"quoted\" / ünïcode", quantity: 3, storefront: "USA", webOrderLineItemID: "w1",
        appTransactionID: "704289572311513871", billingPlanType: "MONTHLY_WITH_COMMITMENT",
        commitment: Commitment(
            billingPeriodNumber: 2, totalBillingPeriods: 12, expiresAt: day(365),
            priceAfter: Money(milliunits: 12_990, currency: "USD")))
    let bare = tx("t2", otx: "o1", purchased: day(2))
    let r = ref("o1", signed: day(3), user: "u1")
    return [
        .purchaseConsumable(Purchase(transaction: full)),
        .purchaseNonConsumable(Purchase(transaction: bare)),
        .purchaseNonRenewing(Purchase(transaction: full)),
        .grantGiven(
            EntitlementGrant(
                grantID: "grt_1", appUserID: "u1", entitlementID: "pro", expiresAt: day(30), reason: "outage \"make-good\"",
                grantedBy: "op_1", grantedAt: day(1))),
        .grantRevoked(GrantRevocation(grantID: "grt_1", appUserID: "u1", reason: "mistake", revokedBy: "op_2", revokedAt: day(2))),
        .externalPurchase(
            ExternalPurchase(
                appUserID: "u1", productID: "web", productType: .autoRenewable, paymentID: "pay1", provider: "bluesnap",
                purchasedAt: day(1), expiresDate: day(31), price: Money(milliunits: 1_000, currency: "EUR"),
                environment: StoreEnvironment(rawValue: "Test"), developerPayload: "x")),
        .consumed(Consumption(appUserID: "u1", productID: "coins", transactionID: "t1", originalTransactionID: "o1", consumedAt: day(4))),
        .subscriptionStarted(SubscriptionStarted(transaction: full, isResubscribe: true)),
        .subscriptionRenewed(Renewal(transaction: bare)),
        .billingFailed(BillingFailure(subscription: r, gracePeriodExpiresAt: day(9), expiresDate: day(3))),
        .billingFailed(BillingFailure(subscription: r)),
        .gracePeriodExpired(GracePeriodExpired(subscription: r)),
        .gracePeriodExpired(GracePeriodExpired(subscription: ref("o1", signed: day(4), user: "u1"), expiresDate: day(3))),
        .billingRecovered(Renewal(transaction: full)),
        .subscriptionExpired(Expiry(subscription: r, reason: .voluntary, expiresDate: day(31))),
        .subscriptionExpired(Expiry(subscription: r, reason: .billingError)),
        .subscriptionExpired(Expiry(subscription: r, reason: .priceIncreaseDeclined)),
        .subscriptionExpired(Expiry(subscription: r, reason: .productUnavailable)),
        .subscriptionExpired(Expiry(subscription: r, reason: .lapsed)),
        .subscriptionExpired(Expiry(subscription: r, reason: .other("SOMETHING_NEW"))),
        .autoRenewChanged(AutoRenewChange(subscription: r, enabled: false)),
        .renewalPreferenceChanged(RenewalPreferenceChange(subscription: r, kind: .upgrade, autoRenewProductID: "premium", transaction: full)),
        .renewalPreferenceChanged(RenewalPreferenceChange(subscription: r, kind: .downgradeCancelled, autoRenewProductID: "monthly")),
        .renewalPreferenceChanged(RenewalPreferenceChange(subscription: r, kind: .crossgrade, autoRenewProductID: "monthly_plus")),
        .priceIncrease(PriceIncrease(subscription: r, consent: .pending)),
        .renewalExtended(RenewalExtension(subscription: r, newExpiresDate: day(40), extendedByDays: 9)),
        .refunded(Refund(subscription: r, transactionID: "t1", refundDate: day(5), reason: "0")),
        .refundDeclined(RefundDeclined(subscription: r, transactionID: "t1")),
        .refundReversed(RefundReversed(subscription: r, transactionID: "t1")),
        .revoked(Revocation(subscription: r, transactionID: "t1", revocationDate: day(6))),
        .consumptionRequested(ConsumptionRequest(subscription: r, transactionID: "t1")),
        .consumptionInformationSent(
            ConsumptionInformationSent(
                originalTransactionID: "o1", transactionID: "t1", productID: "coins", environment: .sandbox, requestSignedDate: day(6),
                sentAt: day(7),
                answer: ConsumptionAnswer(
                    consumptionPercentage: 50_000, deliveryStatus: .delivered, refundPreference: .grantProrated,
                    sampleContentProvided: true),
                inputs: ConsumptionInputs(
                    appUserID: "u1", productType: .autoRenewable, periodStart: day(1), periodEnd: day(31), requestedAt: day(16),
                    consent: ConsumptionConsent(appUserID: "u1", consented: true, source: .app, recordedAt: day(2)),
                    refundPolicy: .byConsumption, sampleContentProvided: true),
                appleStatus: 202)),
        .consumptionInformationSent(
            ConsumptionInformationSent(
                originalTransactionID: "o1", transactionID: "t2", productID: "coins", environment: .sandbox, requestSignedDate: day(6),
                sentAt: day(7),
                answer: ConsumptionAnswer(
                    consumptionPercentage: nil, deliveryStatus: .undeliveredOther, refundPreference: nil,
                    sampleContentProvided: false),
                inputs: ConsumptionInputs(
                    appUserID: "u1", productType: .consumable, consumedAt: day(3), requestedAt: day(6),
                    consent: ConsumptionConsent(appUserID: "u1", consented: true, source: .backend, recordedAt: day(2)),
                    refundPolicy: .noPreference, sampleContentProvided: false),
                appleStatus: 404, appleErrorCode: 4_040_010)),
        .consumptionInformationSent(
            ConsumptionInformationSent(
                originalTransactionID: "o1", transactionID: "t3", productID: "coins", environment: .sandbox, requestSignedDate: day(6),
                sentAt: day(7), answer: nil, inputs: nil, appleStatus: nil,
                v1Body: ConsumptionInformationV1Body(consumptionStatus: 3, deliveryStatus: 0, platform: 1, customerConsented: true))),
        .consumptionAnswerWithheld(
            ConsumptionAnswerWithheld(
                originalTransactionID: "o1", transactionID: "t1", productID: "coins", environment: .production, requestSignedDate: day(6),
                decidedAt: day(6, hours: 1), reason: .noConsentRecorded,
                inputs: ConsumptionInputs(
                    appUserID: "u1", productType: .nonConsumable, requestedAt: day(6), consent: nil,
                    refundPolicy: .alwaysDecline, sampleContentProvided: false))),
        .consumptionConsentRecorded(ConsumptionConsent(appUserID: "u1", consented: false, source: .backend, recordedAt: day(5))),
        .linked(TransactionLink(appUserID: "u2", originalTransactionIDs: ["o1", "o2"], linkedAt: day(7), source: .restore)),
        .transferred(Transfer(fromUserID: "u1", toUserID: "u2", originalTransactionIDs: ["o1"], transferredAt: day(8), policy: .transferIfNoActive)),
        .appStoreNotification(
            AppStoreNotification(
                notificationType: "SOME_FUTURE_TYPE", subtype: "X", notificationUUID: "0f6a-uuid", signedDate: day(9),
                environment: .production, originalTransactionID: "o1", rawJSON: #"{"notificationType":"SOME_FUTURE_TYPE","data":{"n":1.50}}"#)),
        .appStoreNotification(AppStoreNotification(notificationType: "TEST", notificationUUID: "u-2", rawJSON: "{}")),
        .appStoreNotification(
            AppStoreNotification(
                notificationType: "RENEWAL_EXTENSION", subtype: "SUMMARY", notificationUUID: "u-3", rawJSON: "{}",
                renewalExtensionSummary: RenewalExtensionSummary(
                    requestIdentifier: "r1", productID: "monthly", storefrontCountryCodes: ["USA"], succeededCount: 10, failedCount: 1)))
    ]
}

/// The case name of an event; exhaustive, so adding a case breaks this until a sample is added above.
func caseName(_ event: LedgerEvent) -> String {
    switch event {
    case .purchaseConsumable: "purchaseConsumable"
    case .purchaseNonConsumable: "purchaseNonConsumable"
    case .purchaseNonRenewing: "purchaseNonRenewing"
    case .externalPurchase: "externalPurchase"
    case .consumed: "consumed"
    case .subscriptionStarted: "subscriptionStarted"
    case .subscriptionRenewed: "subscriptionRenewed"
    case .billingFailed: "billingFailed"
    case .gracePeriodExpired: "gracePeriodExpired"
    case .billingRecovered: "billingRecovered"
    case .subscriptionExpired: "subscriptionExpired"
    case .autoRenewChanged: "autoRenewChanged"
    case .renewalPreferenceChanged: "renewalPreferenceChanged"
    case .priceIncrease: "priceIncrease"
    case .renewalExtended: "renewalExtended"
    case .refunded: "refunded"
    case .refundDeclined: "refundDeclined"
    case .refundReversed: "refundReversed"
    case .revoked: "revoked"
    case .consumptionRequested: "consumptionRequested"
    case .consumptionInformationSent: "consumptionInformationSent"
    case .consumptionAnswerWithheld: "consumptionAnswerWithheld"
    case .consumptionConsentRecorded: "consumptionConsentRecorded"
    case .grantGiven: "grantGiven"
    case .grantRevoked: "grantRevoked"
    case .linked: "linked"
    case .transferred: "transferred"
    case .appStoreNotification: "appStoreNotification"
    }
}
