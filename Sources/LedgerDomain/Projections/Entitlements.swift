import UTCTime

/// The app's catalog: which entitlements each product grants (e.g. "pro" from monthly, yearly and lifetime).
///
/// A domain value passed in by the caller, not an event: the catalog is configuration that changes rarely and
/// must apply to history retroactively ("which features does this user have now"), so entitlements are computed
/// at query time from per-transaction states and the current catalog. A product not in the catalog grants an
/// entitlement named after itself, so an unconfigured app still answers something sensible.
public struct Catalog: Sendable, Hashable, Codable {
    /// Product id → entitlement ids.
    public var entitlementsByProduct: [String: [String]]

    public init(entitlementsByProduct: [String: [String]] = [:]) {
        self.entitlementsByProduct = entitlementsByProduct
    }

    /// The entitlements a product grants.
    public func entitlements(of productID: String) -> [String] {
        entitlementsByProduct[productID] ?? [productID]
    }
}

/// One entitlement of a user at an instant.
public struct Entitlement: Sendable, Hashable, Codable {
    public var entitlementID: String
    public var isActive: Bool
    /// When access ends (nil: does not end, e.g. non-consumable; or unknown).
    public var expiresAt: Instant?
    /// The product that grants (or last granted) it.
    public var grantingProductID: String

    public init(entitlementID: String, isActive: Bool, expiresAt: Instant?, grantingProductID: String) {
        self.entitlementID = entitlementID
        self.isActive = isActive
        self.expiresAt = expiresAt
        self.grantingProductID = grantingProductID
    }
}

/// Entitlements per user: entitlement id → active, expires at, granting product.
///
/// Among several grants of one entitlement, an active one wins over an inactive one, then the one lasting
/// longest (no expiry beats any expiry), then the smaller product id, so the answer is deterministic.
public func entitlements(
    statuses: [SubscriptionSummary], purchases: [PurchaseSummary], grants given: [GrantSummary] = [], catalog: Catalog, at instant: Instant
) -> [String: Entitlement] {
    var grants: [Entitlement] = []
    // Support grants give their entitlement directly, whatever the catalog says; the source names the grant.
    for grant in given {
        grants.append(
            Entitlement(
                entitlementID: grant.entitlementID, isActive: grant.isActive(at: instant), expiresAt: grant.expiresAt,
                grantingProductID: grant.grantingID))
    }
    for status in statuses where status.isKnown {
        guard let product = status.productID else { continue }
        for id in catalog.entitlements(of: product) {
            grants.append(
                Entitlement(
                    entitlementID: id, isActive: status.isEntitled(at: instant), expiresAt: status.accessEndsAt,
                    grantingProductID: product))
        }
    }
    for record in purchases {
        guard let d = record.details, d.productType != .consumable else { continue }
        for id in catalog.entitlements(of: d.productID) {
            grants.append(
                Entitlement(
                    entitlementID: id, isActive: record.isActive(at: instant), expiresAt: d.expiresAt,
                    grantingProductID: d.productID))
        }
    }
    var result: [String: Entitlement] = [:]
    for grant in grants {
        guard let current = result[grant.entitlementID] else {
            result[grant.entitlementID] = grant
            continue
        }
        if better(grant, than: current) { result[grant.entitlementID] = grant }
    }
    return result
}

/// Entitlements of one user (see `entitlements(statuses:purchases:catalog:at:)`).
public func entitlements(_ user: UserView, catalog: Catalog, at instant: Instant) -> [String: Entitlement] {
    entitlements(statuses: user.subscriptions, purchases: user.purchases, grants: user.grants, catalog: catalog, at: instant)
}

private func better(_ a: Entitlement, than b: Entitlement) -> Bool {
    if a.isActive != b.isActive { return a.isActive }
    let ea = a.expiresAt?.microsecondsSinceEpoch ?? .max
    let eb = b.expiresAt?.microsecondsSinceEpoch ?? .max
    if ea != eb { return ea > eb }
    return a.grantingProductID < b.grantingProductID
}
