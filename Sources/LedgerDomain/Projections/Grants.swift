import UTCTime

/// One grant as the user's stream tells it: given, revoked, or both (in either order: the reducer converges).
public struct GrantState: Sendable, Codable, Equatable {
    public var given: EntitlementGrant?
    public var revoked: GrantRevocation?

    public init(given: EntitlementGrant? = nil, revoked: GrantRevocation? = nil) {
        self.given = given
        self.revoked = revoked
    }
}

/// Every grant of one user (`GrantsReducer`'s state, by grant id).
public struct UserGrants: Sendable, Codable, Equatable {
    public var appUserID: String
    public var grants: [String: GrantState]

    public init(appUserID: String, grants: [String: GrantState] = [:]) {
        self.appUserID = appUserID
        self.grants = grants
    }

    /// The grants that were given (a revocation alone names nothing to show), by grant id.
    public var summaries: [GrantSummary] {
        grants.compactMap { _, state in
            state.given.map { GrantSummary($0, revokedAt: state.revoked?.revokedAt) }
        }.sorted { $0.grantID < $1.grantID }
    }
}

/// A grant as the per-user views read it.
public struct GrantSummary: Sendable, Hashable, Codable {
    public var grantID: String
    public var appUserID: String
    public var entitlementID: String
    public var expiresAt: Instant
    public var grantedAt: Instant
    public var reason: String
    public var grantedBy: String
    public var revokedAt: Instant?

    public init(_ grant: EntitlementGrant, revokedAt: Instant?) {
        (grantID, appUserID, entitlementID, expiresAt) = (grant.grantID, grant.appUserID, grant.entitlementID, grant.expiresAt)
        (grantedAt, reason, grantedBy, self.revokedAt) = (grant.grantedAt, grant.reason, grant.grantedBy, revokedAt)
    }

    /// Whether it gives its entitlement at `instant`: not revoked, and before its expiry (judged like a subscription's).
    public func isActive(at instant: Instant) -> Bool { revokedAt == nil && instant < expiresAt }

    /// What an entitlement it gives names as its source: `grant:<grant id>`.
    public var grantingID: String { "grant:" + grantID }
}

/// Reducer of a user's grants, keyed by app user id (the events lie in `LedgerStreams.user`). Table / checkpoint
/// name `grants`.
public enum GrantsReducer: ProjectionReducer {
    public typealias State = UserGrants

    public static let name = "grants"

    public static func keys(for event: DomainEvent) -> [String] {
        switch event.event {
        case .grantGiven(let g): [g.appUserID]
        case .grantRevoked(let r): [r.appUserID]
        case .purchaseConsumable, .purchaseNonConsumable, .purchaseNonRenewing, .externalPurchase, .consumed, .subscriptionStarted,
            .subscriptionRenewed, .billingFailed, .gracePeriodExpired, .billingRecovered, .subscriptionExpired, .autoRenewChanged,
            .renewalPreferenceChanged, .priceIncrease, .renewalExtended, .refunded, .refundDeclined, .refundReversed, .revoked,
            .consumptionRequested, .consumptionInformationSent, .consumptionAnswerWithheld, .consumptionConsentRecorded, .linked,
            .transferred, .appStoreNotification:
            []
        }
    }

    public static func initial(key: String) -> UserGrants { UserGrants(appUserID: key) }

    public static func apply(_ s: inout UserGrants, _ event: DomainEvent) {
        switch event.event {
        case .grantGiven(let g): s.grants[g.grantID, default: GrantState()].given = g
        case .grantRevoked(let r):
            // The first revocation holds (a grant ends once).
            if s.grants[r.grantID]?.revoked == nil { s.grants[r.grantID, default: GrantState()].revoked = r }
        case .purchaseConsumable, .purchaseNonConsumable, .purchaseNonRenewing, .externalPurchase, .consumed, .subscriptionStarted,
            .subscriptionRenewed, .billingFailed, .gracePeriodExpired, .billingRecovered, .subscriptionExpired, .autoRenewChanged,
            .renewalPreferenceChanged, .priceIncrease, .renewalExtended, .refunded, .refundDeclined, .refundReversed, .revoked,
            .consumptionRequested, .consumptionInformationSent, .consumptionAnswerWithheld, .consumptionConsentRecorded, .linked,
            .transferred, .appStoreNotification:
            break
        }
    }
}
