import UTCTime

/// One consumable waiting to be delivered and consumed (the seed's unconsumed purchase).
public struct UnconsumedPurchase: Sendable, Hashable, Codable {
    public var originalTransactionID: String
    public var transactionID: String
    public var productID: String
    public var purchasedAt: Instant
    public var quantity: Int
    /// The payload the app attached to the purchase, handed back so it can deliver the right goods.
    public var developerPayload: String?

    public init(
        originalTransactionID: String, transactionID: String, productID: String, purchasedAt: Instant,
        quantity: Int, developerPayload: String?
    ) {
        self.originalTransactionID = originalTransactionID
        self.transactionID = transactionID
        self.productID = productID
        self.purchasedAt = purchasedAt
        self.quantity = quantity
        self.developerPayload = developerPayload
    }
}

/// Unconsumed purchases per user: consumables neither consumed nor refunded / revoked, oldest first.
public enum UnconsumedPurchases {
    public static func list(_ user: UserView) -> [UnconsumedPurchase] {
        user.purchases.compactMap { record -> UnconsumedPurchase? in
            guard let d = record.details, d.productType == .consumable, !record.isConsumed, !record.isWithdrawn
            else { return nil }
            return UnconsumedPurchase(
                originalTransactionID: record.originalTransactionID, transactionID: d.transactionID,
                productID: d.productID, purchasedAt: d.purchasedAt, quantity: d.quantity,
                developerPayload: d.developerPayload)
        }
        .sorted { ($0.purchasedAt, $0.transactionID) < ($1.purchasedAt, $1.transactionID) }
    }
}
