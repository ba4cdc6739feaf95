import UTCTime

/// What the per-user views read of one purchase that is not an App Store subscription: `PurchaseRecord` without
/// its registers' stamps. The `ledger.purchases` read model stores exactly these values in typed columns (see
/// `SubscriptionSummary` for why).
public struct PurchaseSummary: Sendable, Hashable {
    public var originalTransactionID: String
    public var ownerUserID: String?
    /// The purchase itself, once seen.
    public var details: PurchaseRecord.Details?
    /// When the developer consumed it.
    public var consumedAt: Instant?
    /// Refund / revocation standing, when any was recorded.
    public var standing: TransactionStanding?

    public init(
        originalTransactionID: String, ownerUserID: String? = nil, details: PurchaseRecord.Details? = nil,
        consumedAt: Instant? = nil, standing: TransactionStanding? = nil
    ) {
        self.originalTransactionID = originalTransactionID
        self.ownerUserID = ownerUserID
        self.details = details
        self.consumedAt = consumedAt
        self.standing = standing
    }

    public var isKnown: Bool { details != nil }
    public var isConsumed: Bool { consumedAt != nil }

    /// Refunded or revoked, and not reversed.
    public var isWithdrawn: Bool {
        switch standing {
        case .refunded?, .revoked?: true
        case .valid?, nil: false
        }
    }

    /// Whether the purchase gives access at `instant`: known, not refunded or revoked, not consumed, and (for
    /// non-renewing or external subscriptions) not past its expiry.
    public func isActive(at instant: Instant) -> Bool {
        guard let details, !isWithdrawn, !isConsumed else { return false }
        if let expiresAt = details.expiresAt { return expiresAt > instant }
        return true
    }
}

extension PurchaseRecord {
    /// The values the per-user views read.
    public var summary: PurchaseSummary {
        PurchaseSummary(
            originalTransactionID: originalTransactionID, ownerUserID: ownerUserID, details: details,
            consumedAt: consumedAt, standing: standing?.value)
    }
}
