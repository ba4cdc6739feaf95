import UTCTime

/// Where an auto-renewable subscription stands, as Apple last said.
public enum SubscriptionState: Sendable, Hashable, Codable {
    /// Paid through `expiresAt`.
    case active
    /// Billing failed; access continues until `graceExpiresAt`.
    case inGracePeriod
    /// Billing failed (or grace ended); Apple retries, no access.
    case inBillingRetry
    /// Ended, with Apple's reason.
    case expired(ExpiryReason)
    /// Family Sharing access withdrawn.
    case revoked
    /// The latest transaction was refunded.
    case refunded

    /// Stored as one string ("active", "inGracePeriod", "inBillingRetry", "revoked", "refunded",
    /// "expired:<reason>") so that SQL can filter on it.
    public var storedValue: String {
        switch self {
        case .active: "active"
        case .inGracePeriod: "inGracePeriod"
        case .inBillingRetry: "inBillingRetry"
        case .expired(let reason): "expired:\(reason.rawValue)"
        case .revoked: "revoked"
        case .refunded: "refunded"
        }
    }

    /// Parses `storedValue`; nil for text this version never wrote.
    public init?(storedValue: String) {
        switch storedValue {
        case "active": self = .active
        case "inGracePeriod": self = .inGracePeriod
        case "inBillingRetry": self = .inBillingRetry
        case "revoked": self = .revoked
        case "refunded": self = .refunded
        case let text where text.hasPrefix("expired:"):
            self = .expired(ExpiryReason(rawValue: String(text.dropFirst("expired:".count))))
        default: return nil
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let state = SubscriptionState(storedValue: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown subscription state \(text)")
        }
        self = state
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(storedValue)
    }
}

/// The refund / revocation standing of one transaction, last writer wins.
public enum TransactionStanding: String, Sendable, Hashable, Codable {
    case valid
    case refunded
    case revoked
}

extension LedgerEvent {
    /// The ownership claim this event makes on the transactions it names (see `OwnerClaim`).
    var ownerClaim: OwnerClaim? {
        switch self {
        case .purchaseConsumable(let p), .purchaseNonConsumable(let p), .purchaseNonRenewing(let p):
            return p.transaction.appUserID.map {
                OwnerClaim(appUserID: $0, strong: true, stamp: Stamp(at: p.transaction.purchaseDate, tie: $0))
            }
        case .subscriptionStarted(let s):
            return s.transaction.appUserID.map {
                OwnerClaim(appUserID: $0, strong: true, stamp: Stamp(at: s.transaction.purchaseDate, tie: $0))
            }
        case .externalPurchase(let p):
            return OwnerClaim(appUserID: p.appUserID, strong: true, stamp: Stamp(at: p.purchasedAt, tie: p.appUserID))
        case .linked(let l):
            return OwnerClaim(appUserID: l.appUserID, strong: true, stamp: Stamp(at: l.linkedAt, rank: 1, tie: l.appUserID))
        case .transferred(let t):
            return OwnerClaim(appUserID: t.toUserID, strong: true, stamp: Stamp(at: t.transferredAt, rank: 2, tie: t.toUserID))
        case .appStoreNotification, .consumptionAnswerWithheld, .consumptionConsentRecorded, .grantGiven, .grantRevoked:
            return nil
        case .consumed, .subscriptionRenewed, .billingRecovered, .billingFailed, .gracePeriodExpired,
            .subscriptionExpired, .autoRenewChanged, .renewalPreferenceChanged, .priceIncrease, .renewalExtended,
            .refunded, .refundDeclined, .refundReversed, .revoked, .consumptionRequested, .consumptionInformationSent:
            return appUserID.map { OwnerClaim(appUserID: $0, strong: false, stamp: Stamp(at: Instant(microsecondsSinceEpoch: 0), tie: $0)) }
        }
    }
}
