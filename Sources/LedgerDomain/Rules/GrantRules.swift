import UTCTime

/// Why a grant cannot be given or revoked. Each case says what the caller should fix.
public enum GrantError: Error, Sendable, Equatable {
    /// The app's catalog names no such entitlement (`known` lists those it names).
    case unknownEntitlement(String, known: [String])
    /// Every grant and revocation says why (the timeline and auditors read it).
    case reasonMissing
    case reasonTooLong(maximum: Int)
    /// Control characters (line breaks among them) have no place in a one-line reason.
    case reasonHasControlCharacters
    /// The expiry must lie after the moment the grant is given and within `GrantRules.longest`.
    case expiryNotInFuture(expiresAt: Instant)
    case expiryTooFar(expiresAt: Instant, latest: Instant)
    /// The user has no grant with this id.
    case unknownGrant(grantID: String)
    /// A grant ends once: revoked before, or past its expiry.
    case alreadyRevoked(grantID: String, revokedAt: Instant)
    case alreadyExpired(grantID: String, expiredAt: Instant)
    /// A grant was given under this `Idempotency-Key` with another entitlement, expiry or reason.
    case idempotencyKeyReused(grantID: String)
}

extension GrantError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unknownEntitlement(let id, let known) where known.isEmpty:
            "the app's catalog names no entitlement, so `\(id)` cannot be granted; give the app's products their entitlements first"
        case .unknownEntitlement(let id, let known):
            "the app's catalog names no entitlement `\(id)`; grant one of: \(known.joined(separator: ", "))"
        case .reasonMissing: "say why in `reason` (the user's timeline and the auditors read it)"
        case .reasonTooLong(let maximum): "`reason` is longer than \(maximum) characters; say it briefly"
        case .reasonHasControlCharacters: "`reason` has control characters (line breaks, tabs…); write it on one line"
        case .expiryNotInFuture(let at): "`expires_at` \(at.rfc3339) is not in the future; a grant must end after it is given"
        case .expiryTooFar(let at, let latest):
            "`expires_at` \(at.rfc3339) is too far ahead; a grant lasts at most \(GrantRules.longestDays) days (until \(latest.rfc3339))"
        case .unknownGrant(let id): "the user has no grant \(id)"
        case .alreadyRevoked(let id, let at): "grant \(id) was already revoked at \(at.rfc3339)"
        case .alreadyExpired(let id, let at): "grant \(id) already expired at \(at.rfc3339); there is nothing to revoke"
        case .idempotencyKeyReused(let id):
            "this Idempotency-Key gave grant \(id) with another entitlement_id, expires_at or reason; send a new key for a new grant"
        }
    }
}

/// Support grants (promotional entitlements): what an operator may give and take back.
public enum GrantRules {
    /// What a grant's idempotency key may be (the API's `Idempotency-Key`, the console form's key): 1 to 255 visible
    /// ASCII characters, so that it fits any header and log line unescaped.
    public static func isIdempotencyKey(_ key: String) -> Bool {
        (1...255).contains(key.utf8.count) && key.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// The longest a grant may last: ten years. Longer is a lifetime product, which belongs in the catalog.
    public static let longestDays: Int64 = 3_660
    public static let longestReason = 500

    /// The grant to record, or why not. The entitlement must be one the app's catalog names, so that a typo does not
    /// give something no product checks for.
    public static func give(
        grantID: String, appUserID: String, entitlementID: String, expiresAt: Instant, reason: String, by operatorID: String,
        at now: Instant, catalog: Catalog
    ) -> Result<EntitlementGrant, GrantError> {
        let known = Set(catalog.entitlementsByProduct.values.joined()).sorted()
        guard known.contains(entitlementID) else { return .failure(.unknownEntitlement(entitlementID, known: known)) }
        if let refusal = check(reason: reason) { return .failure(refusal) }
        guard expiresAt > now else { return .failure(.expiryNotInFuture(expiresAt: expiresAt)) }
        let latest = now.adding(days: longestDays)
        guard expiresAt <= latest else { return .failure(.expiryTooFar(expiresAt: expiresAt, latest: latest)) }
        return .success(
            EntitlementGrant(
                grantID: grantID, appUserID: appUserID, entitlementID: entitlementID, expiresAt: expiresAt,
                reason: reason, grantedBy: operatorID, grantedAt: now))
    }

    /// The revocation to record for the user's `grants` (folded from their stream), or why not.
    public static func revoke(
        _ grants: UserGrants, grantID: String, reason: String, by operatorID: String, at now: Instant
    ) -> Result<GrantRevocation, GrantError> {
        guard let given = grants.grants[grantID]?.given else { return .failure(.unknownGrant(grantID: grantID)) }
        if let revoked = grants.grants[grantID]?.revoked { return .failure(.alreadyRevoked(grantID: grantID, revokedAt: revoked.revokedAt)) }
        guard now < given.expiresAt else { return .failure(.alreadyExpired(grantID: grantID, expiredAt: given.expiresAt)) }
        // A revocation's reason may be left out (the grant's says why it existed).
        if let refusal = check(reason: reason, required: false) { return .failure(refusal) }
        return .success(GrantRevocation(grantID: grantID, appUserID: grants.appUserID, reason: reason, revokedBy: operatorID, revokedAt: now))
    }

    private static func check(reason: String, required: Bool = true) -> GrantError? {
        if required && reason.allSatisfy(\.isWhitespace) { return .reasonMissing }
        if reason.count > longestReason { return .reasonTooLong(maximum: longestReason) }
        if reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return .reasonHasControlCharacters }
        return nil
    }
}
