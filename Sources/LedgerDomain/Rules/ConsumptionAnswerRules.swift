import UTCTime

/// How an app wants Apple to decide the refunds its users request (the app's `refund_policy`): the
/// `refundPreference` of its answers to `CONSUMPTION_REQUEST`s.
public enum RefundPolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// From what the ledger knows (the default): grant in full what was not delivered or not used at all, prorate
    /// what was partly used, decline what was delivered and fully used (`ConsumptionAnswerRules.refundPreference`).
    case byConsumption = "by_consumption"
    /// Always `GRANT_FULL`.
    case alwaysGrant = "always_grant"
    /// Always `DECLINE`.
    case alwaysDecline = "always_decline"
    /// No `refundPreference` in the answer: Apple decides from the consumption data alone.
    case noPreference = "no_preference"
}

/// Apple's `deliveryStatus` values.
public enum DeliveryStatus: String, Sendable, Hashable, Codable, CaseIterable {
    case delivered = "DELIVERED"
    case undeliveredQualityIssue = "UNDELIVERED_QUALITY_ISSUE"
    case undeliveredWrongItem = "UNDELIVERED_WRONG_ITEM"
    case undeliveredServerOutage = "UNDELIVERED_SERVER_OUTAGE"
    case undeliveredOther = "UNDELIVERED_OTHER"
}

/// Apple's `refundPreference` values.
public enum RefundPreference: String, Sendable, Hashable, Codable, CaseIterable {
    case decline = "DECLINE"
    case grantFull = "GRANT_FULL"
    case grantProrated = "GRANT_PRORATED"
}

/// An answer to a consumption request: the body of Send Consumption Information (Apple's `ConsumptionRequest` of
/// `PUT /inApps/v2/transactions/consumption/{transactionId}`), with Apple's field names. Absent optionals are left
/// out of the body.
public struct ConsumptionAnswer: Sendable, Hashable, Codable {
    /// Always true: without the user's consent nothing is sent.
    public var customerConsented: Bool
    /// The share used, in milliunits (0…100000; 50% is 50000); nil when the ledger has no measure of it.
    public var consumptionPercentage: Int?
    public var deliveryStatus: DeliveryStatus
    public var refundPreference: RefundPreference?
    public var sampleContentProvided: Bool

    public init(
        customerConsented: Bool = true, consumptionPercentage: Int?, deliveryStatus: DeliveryStatus,
        refundPreference: RefundPreference?, sampleContentProvided: Bool
    ) {
        self.customerConsented = customerConsented
        self.consumptionPercentage = consumptionPercentage
        self.deliveryStatus = deliveryStatus
        self.refundPreference = refundPreference
        self.sampleContentProvided = sampleContentProvided
    }
}

/// Everything an answer to a consumption request is decided from, as the log held it when the ledger decided; recorded
/// with the decision (sent or withheld), so the user's history shows why.
public struct ConsumptionInputs: Sendable, Hashable, Codable {
    /// The purchase's owner in the ledger; nil: linked to no user of the app.
    public var appUserID: String?
    /// The purchase's kind as the log records it; nil: the log holds no purchase for the request.
    public var productType: ProductType?
    /// Consumables: when the app marked it consumed (delivered and used up); nil: not consumed.
    public var consumedAt: Instant?
    /// The requested transaction's period (subscriptions, non-renewing): its purchase and expiry.
    public var periodStart: Instant?
    public var periodEnd: Instant?
    /// When Apple asked (the request's signing time): the moment a period's used share is measured at.
    public var requestedAt: Instant
    /// The owner's latest consent; nil: none recorded.
    public var consent: ConsumptionConsent?
    public var refundPolicy: RefundPolicy
    /// The app's setting `sample_content_provided` (a free sample or trial before the purchase).
    public var sampleContentProvided: Bool

    public init(
        appUserID: String?, productType: ProductType?, consumedAt: Instant? = nil, periodStart: Instant? = nil,
        periodEnd: Instant? = nil, requestedAt: Instant, consent: ConsumptionConsent?, refundPolicy: RefundPolicy,
        sampleContentProvided: Bool
    ) {
        self.appUserID = appUserID
        self.productType = productType
        self.consumedAt = consumedAt
        self.periodStart = periodStart
        self.periodEnd = periodEnd
        self.requestedAt = requestedAt
        self.consent = consent
        self.refundPolicy = refundPolicy
        self.sampleContentProvided = sampleContentProvided
    }
}

/// Why nothing was sent to Apple for a consumption request.
public enum ConsumptionWithholdReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// The log holds no purchase for the request: the ledger has nothing to declare.
    case unknownPurchase = "unknown_purchase"
    /// The purchase is linked to no user of the app, so no one's consent can be recorded for it.
    case noUser = "no_user"
    /// The purchase's user never recorded consent.
    case noConsentRecorded = "no_consent_recorded"
    /// The user's latest consent says no (withdrawn, or refused).
    case consentWithdrawn = "consent_withdrawn"
}

/// What to do with a consumption request.
public enum ConsumptionDecision: Sendable, Hashable {
    case send(ConsumptionAnswer)
    case withhold(ConsumptionWithholdReason)
}

/// The answer to Apple's consumption request (`CONSUMPTION_REQUEST`), from what the ledger recorded: pure, so every
/// branch is tested without I/O.
///
/// - Consent: nothing is sent unless the purchase's user's latest consent says yes (`decide`).
/// - `consumptionPercentage` (`consumptionPercentage`): a consumable is used up when the app consumed it (the ledger
///   consumes a purchase whole, every unit of its quantity): 100000, else 0. A non-consumable is a permanent unlock,
///   used in full once delivered: 100000. A subscription or non-renewing purchase: the share of the requested
///   transaction's period elapsed when Apple asked (rounded down; nil when the log lacks that period).
/// - `deliveryStatus`: a consumable not consumed yet is `UNDELIVERED_OTHER` (the app consumes after it delivered, so
///   the ledger never saw it delivered); everything else the user owns is `DELIVERED`.
/// - `refundPreference`: from the app's `RefundPolicy` (`refundPreference`).
public enum ConsumptionAnswerRules {
    /// 100% in milliunits.
    public static let fullyConsumed = 100_000

    public static func decide(_ inputs: ConsumptionInputs) -> ConsumptionDecision {
        guard inputs.productType != nil else { return .withhold(.unknownPurchase) }
        guard inputs.appUserID != nil else { return .withhold(.noUser) }
        guard let consent = inputs.consent else { return .withhold(.noConsentRecorded) }
        guard consent.consented else { return .withhold(.consentWithdrawn) }
        let percentage = consumptionPercentage(inputs)
        let delivery = deliveryStatus(inputs)
        return .send(
            ConsumptionAnswer(
                consumptionPercentage: percentage, deliveryStatus: delivery,
                refundPreference: refundPreference(inputs.refundPolicy, delivery: delivery, percentage: percentage),
                sampleContentProvided: inputs.sampleContentProvided))
    }

    public static func consumptionPercentage(_ inputs: ConsumptionInputs) -> Int? {
        switch inputs.productType {
        case nil: return nil
        case .consumable?: return inputs.consumedAt == nil ? 0 : fullyConsumed
        case .nonConsumable?: return fullyConsumed
        case .autoRenewable?, .nonRenewing?:
            guard let start = inputs.periodStart, let end = inputs.periodEnd, end > start else { return nil }
            // Milliseconds: a century's period times 100000 still fits in Int64.
            let total = (end.microsecondsSinceEpoch - start.microsecondsSinceEpoch) / 1000
            guard total > 0 else { return nil }
            let used = min(max((inputs.requestedAt.microsecondsSinceEpoch - start.microsecondsSinceEpoch) / 1000, 0), total)
            return Int(used * Int64(fullyConsumed) / total)
        }
    }

    public static func deliveryStatus(_ inputs: ConsumptionInputs) -> DeliveryStatus {
        inputs.productType == .consumable && inputs.consumedAt == nil ? .undeliveredOther : .delivered
    }

    /// The preference `policy` gives. `byConsumption`: not delivered → `GRANT_FULL`; delivered and not used at all (0)
    /// → `GRANT_FULL`; partly used → `GRANT_PRORATED`; fully used → `DECLINE`; no measure of use → none.
    public static func refundPreference(_ policy: RefundPolicy, delivery: DeliveryStatus, percentage: Int?) -> RefundPreference? {
        switch policy {
        case .alwaysGrant: return .grantFull
        case .alwaysDecline: return .decline
        case .noPreference: return nil
        case .byConsumption:
            guard delivery == .delivered else { return .grantFull }
            guard let percentage else { return nil }
            if percentage >= fullyConsumed { return .decline }
            return percentage <= 0 ? .grantFull : .grantProrated
        }
    }

    /// What the purchase's stream says for a request about `transactionID`: its owner, kind, consumption and the
    /// requested transaction's period. The rest of `ConsumptionInputs` (consent, policy) the caller adds.
    public static func purchaseFacts(_ stream: [LedgerEvent], transactionID: String)
        -> (appUserID: String?, productType: ProductType?, consumedAt: Instant?, periodStart: Instant?, periodEnd: Instant?)
    {
        var owner: OwnerClaim?
        var type: ProductType?
        var consumedAt: Instant?
        var period: (start: Instant, end: Instant?)?
        func transaction(_ t: TransactionFacts, _ kind: ProductType) {
            type = type ?? kind
            if t.transactionID == transactionID { period = (t.purchaseDate, t.expiresDate) }
        }
        for event in stream {
            owner = OwnerClaim.merge(owner, event.ownerClaim)
            switch event {
            case .purchaseConsumable(let p): transaction(p.transaction, .consumable)
            case .purchaseNonConsumable(let p): transaction(p.transaction, .nonConsumable)
            case .purchaseNonRenewing(let p): transaction(p.transaction, .nonRenewing)
            case .subscriptionStarted(let s): transaction(s.transaction, .autoRenewable)
            case .subscriptionRenewed(let r), .billingRecovered(let r): transaction(r.transaction, .autoRenewable)
            case .renewalPreferenceChanged(let c):
                if let t = c.transaction { transaction(t, .autoRenewable) }
            case .externalPurchase(let p):
                type = type ?? p.productType
                if p.paymentID == transactionID { period = (p.purchasedAt, p.expiresDate) }
            case .consumed(let c): consumedAt = consumedAt.map { min($0, c.consumedAt) } ?? c.consumedAt
            case .billingFailed, .gracePeriodExpired, .subscriptionExpired, .autoRenewChanged, .priceIncrease, .renewalExtended,
                .refunded, .refundDeclined, .refundReversed, .revoked, .consumptionRequested, .consumptionInformationSent,
                .consumptionAnswerWithheld, .consumptionConsentRecorded, .grantGiven, .grantRevoked, .linked, .transferred, .appStoreNotification:
                break
            }
        }
        return (owner?.appUserID, type, consumedAt, period?.start, period?.end)
    }

    /// The user's latest consent among `events` (their stream, in order); nil when none is recorded.
    public static func latestConsent(_ events: [LedgerEvent]) -> ConsumptionConsent? {
        events.reduce(nil) { latest, event in
            if case .consumptionConsentRecorded(let consent) = event { return consent }
            return latest
        }
    }
}
