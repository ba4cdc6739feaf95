/// App Store enumerations, as open sets.
///
/// Apple adds values over time (new notification types, offer types, ...). A closed Swift enum would make such data
/// undecodable; these wrappers accept any raw value, name the documented ones, and tell them apart with `isKnown`.
public protocol OpenEnumeration: RawRepresentable, Hashable, Sendable, Codable where RawValue: Hashable & Sendable & Codable {
    /// The values documented by Apple when this code was written.
    static var documented: [Self] { get }
}

extension OpenEnumeration {
    /// Whether Apple documented this value (false for values added later, which are still kept verbatim).
    public var isKnown: Bool { Self.documented.contains(self) }
}

/// `type`: the kind of in-app purchase.
public struct ProductType: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let autoRenewableSubscription = Self(rawValue: "Auto-Renewable Subscription")
    public static let nonConsumable = Self(rawValue: "Non-Consumable")
    public static let consumable = Self(rawValue: "Consumable")
    public static let nonRenewingSubscription = Self(rawValue: "Non-Renewing Subscription")
    public static let documented: [Self] = [.autoRenewableSubscription, .nonConsumable, .consumable, .nonRenewingSubscription]
}

/// `inAppOwnershipType`: bought by the user or shared through Family Sharing.
public struct InAppOwnershipType: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let familyShared = Self(rawValue: "FAMILY_SHARED")
    public static let purchased = Self(rawValue: "PURCHASED")
    public static let documented: [Self] = [.familyShared, .purchased]
}

/// `transactionReason`: a customer purchase or a system-initiated renewal.
public struct TransactionReason: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let purchase = Self(rawValue: "PURCHASE")
    public static let renewal = Self(rawValue: "RENEWAL")
    public static let documented: [Self] = [.purchase, .renewal]
}

/// `offerDiscountType`: how an offer is paid.
public struct OfferDiscountType: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let freeTrial = Self(rawValue: "FREE_TRIAL")
    public static let payAsYouGo = Self(rawValue: "PAY_AS_YOU_GO")
    public static let payUpFront = Self(rawValue: "PAY_UP_FRONT")
    public static let oneTime = Self(rawValue: "ONE_TIME")
    public static let documented: [Self] = [.freeTrial, .payAsYouGo, .payUpFront, .oneTime]
}

/// `revocationType`: how much of a purchase was refunded or revoked.
public struct RevocationType: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let refundFull = Self(rawValue: "REFUND_FULL")
    public static let refundProrated = Self(rawValue: "REFUND_PRORATED")
    public static let familyRevoke = Self(rawValue: "FAMILY_REVOKE")
    public static let documented: [Self] = [.refundFull, .refundProrated, .familyRevoke]
}

/// `offerType` (integer).
public struct OfferType: OpenEnumeration {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public static let introductoryOffer = Self(rawValue: 1)
    public static let promotionalOffer = Self(rawValue: 2)
    public static let offerCode = Self(rawValue: 3)
    public static let winBackOffer = Self(rawValue: 4)
    public static let documented: [Self] = [.introductoryOffer, .promotionalOffer, .offerCode, .winBackOffer]
}

/// `revocationReason` (integer).
public struct RevocationReason: OpenEnumeration {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public static let refundedForOtherReason = Self(rawValue: 0)
    public static let refundedDueToIssue = Self(rawValue: 1)
    public static let documented: [Self] = [.refundedForOtherReason, .refundedDueToIssue]
}

/// `autoRenewStatus` (integer).
public struct AutoRenewStatus: OpenEnumeration {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public static let off = Self(rawValue: 0)
    public static let on = Self(rawValue: 1)
    public static let documented: [Self] = [.off, .on]
}

/// `expirationIntent` (integer).
public struct ExpirationIntent: OpenEnumeration {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public static let customerCancelled = Self(rawValue: 1)
    public static let billingError = Self(rawValue: 2)
    public static let customerDidNotConsentToPriceIncrease = Self(rawValue: 3)
    public static let productNotAvailable = Self(rawValue: 4)
    public static let other = Self(rawValue: 5)
    public static let documented: [Self] = [
        .customerCancelled, .billingError, .customerDidNotConsentToPriceIncrease, .productNotAvailable, .other
    ]
}

/// `priceIncreaseStatus` (integer).
public struct PriceIncreaseStatus: OpenEnumeration {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public static let customerHasNotResponded = Self(rawValue: 0)
    public static let customerConsentedOrWasNotifiedWithoutNeedingConsent = Self(rawValue: 1)
    public static let documented: [Self] = [.customerHasNotResponded, .customerConsentedOrWasNotifiedWithoutNeedingConsent]
}

/// `status` of a subscription in notification `data` (integer).
public struct SubscriptionStatus: OpenEnumeration {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public static let active = Self(rawValue: 1)
    public static let expired = Self(rawValue: 2)
    public static let billingRetry = Self(rawValue: 3)
    public static let billingGracePeriod = Self(rawValue: 4)
    public static let revoked = Self(rawValue: 5)
    public static let documented: [Self] = [.active, .expired, .billingRetry, .billingGracePeriod, .revoked]
}

/// `consumptionRequestReason` of a CONSUMPTION_REQUEST notification.
public struct ConsumptionRequestReason: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let unintendedPurchase = Self(rawValue: "UNINTENDED_PURCHASE")
    public static let fulfillmentIssue = Self(rawValue: "FULFILLMENT_ISSUE")
    public static let unsatisfiedWithPurchase = Self(rawValue: "UNSATISFIED_WITH_PURCHASE")
    public static let legal = Self(rawValue: "LEGAL")
    public static let other = Self(rawValue: "OTHER")
    public static let documented: [Self] = [.unintendedPurchase, .fulfillmentIssue, .unsatisfiedWithPurchase, .legal, .other]
}
