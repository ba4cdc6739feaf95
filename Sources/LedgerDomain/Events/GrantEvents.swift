import UTCTime

/// A promotional entitlement an operator gave a user (a support grant): `entitlementID` until `expiresAt`, judged by
/// the clock like a subscription's expiry. Recorded in the user's stream (`LedgerStreams.user`) with the operator who
/// gave it. A grant is not a purchase: it makes no one a paying user and carries no price.
public struct EntitlementGrant: Sendable, Hashable, Codable {
    public var grantID: String
    public var appUserID: String
    public var entitlementID: String
    public var expiresAt: Instant
    public var reason: String
    /// The operator's id (`op_…`), or `break-glass:<name>`.
    public var grantedBy: String
    public var grantedAt: Instant

    public init(
        grantID: String, appUserID: String, entitlementID: String, expiresAt: Instant, reason: String, grantedBy: String,
        grantedAt: Instant
    ) {
        (self.grantID, self.appUserID, self.entitlementID, self.expiresAt) = (grantID, appUserID, entitlementID, expiresAt)
        (self.reason, self.grantedBy, self.grantedAt) = (reason, grantedBy, grantedAt)
    }
}

/// A grant ended before its expiry by an operator.
public struct GrantRevocation: Sendable, Hashable, Codable {
    public var grantID: String
    public var appUserID: String
    public var reason: String
    public var revokedBy: String
    public var revokedAt: Instant

    public init(grantID: String, appUserID: String, reason: String, revokedBy: String, revokedAt: Instant) {
        (self.grantID, self.appUserID, self.reason, self.revokedBy, self.revokedAt) = (grantID, appUserID, reason, revokedBy, revokedAt)
    }
}
