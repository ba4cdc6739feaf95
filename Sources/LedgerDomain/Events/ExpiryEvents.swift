import UTCTime

/// Why a subscription expired (`EXPIRED` subtypes, renewal info `expirationIntent`).
///
/// Unknown subtypes are kept as `.other(raw)` so a new Apple value is recorded, not lost.
public enum ExpiryReason: Sendable, Hashable, Codable {
    /// `VOLUNTARY`: the user turned auto-renew off.
    case voluntary
    /// `BILLING_RETRY`: billing retry ended without a successful charge.
    case billingError
    /// `PRICE_INCREASE`: the user did not consent to a price increase.
    case priceIncreaseDeclined
    /// `PRODUCT_NOT_FOR_SALE`.
    case productUnavailable
    /// The paid period ended and no renewal was recorded: judged by the ledger's clock when Apple's `EXPIRED` has not
    /// arrived (it can come late, or never for a lost delivery) and auto-renew was not known to be off.
    case lapsed
    /// Anything else, verbatim (never one of the stored names above, which decode to their own case).
    case other(String)

    /// The stored text form.
    public var rawValue: String {
        switch self {
        case .voluntary: "voluntary"
        case .billingError: "billingError"
        case .priceIncreaseDeclined: "priceIncreaseDeclined"
        case .productUnavailable: "productUnavailable"
        case .lapsed: "lapsed"
        case .other(let raw): raw
        }
    }

    /// Parses the stored text form; unknown text becomes `.other`.
    public init(rawValue: String) {
        switch rawValue {
        case "voluntary": self = .voluntary
        case "billingError": self = .billingError
        case "priceIncreaseDeclined": self = .priceIncreaseDeclined
        case "productUnavailable": self = .productUnavailable
        case "lapsed": self = .lapsed
        default: self = .other(rawValue)
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

/// The subscription expired (`EXPIRED`).
public struct Expiry: Sendable, Hashable, Codable {
    public var subscription: SubscriptionRef
    public var reason: ExpiryReason
    /// The expiry date of the last transaction, when known.
    public var expiresDate: Instant?
    public init(subscription: SubscriptionRef, reason: ExpiryReason, expiresDate: Instant? = nil) {
        self.subscription = subscription
        self.reason = reason
        self.expiresDate = expiresDate
    }
}
