import UTCTime

/// Active or inactive, as the seed's `GET /productsStatus` answers.
public enum ProductStatus: String, Sendable, Hashable, Codable {
    case active
    case inactive
}

/// Products status per user: every product the user ever bought → active / inactive at an instant.
public enum ProductsStatus {
    /// A product is active if any subscription or purchase of the user for it gives access at `instant`:
    /// a subscription that is entitled (active or in grace), a non-consumable not refunded or revoked, a
    /// non-renewing or external purchase not expired, a consumable not yet consumed. Products of earlier plans of
    /// a subscription (before an upgrade or downgrade) are listed as inactive.
    public static func compute(_ user: UserView, at instant: Instant) -> [String: ProductStatus] {
        var result: [String: ProductStatus] = [:]
        func mark(_ product: String, _ active: Bool) {
            if active { result[product] = .active } else if result[product] == nil { result[product] = .inactive }
        }
        for status in user.subscriptions {
            for product in status.productsEverPurchased { mark(product, false) }
            if let product = status.productID { mark(product, status.isEntitled(at: instant)) }
        }
        for purchase in user.purchases {
            if let details = purchase.details { mark(details.productID, purchase.isActive(at: instant)) }
        }
        return result
    }
}
