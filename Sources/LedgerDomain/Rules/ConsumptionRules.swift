import UTCTime

/// Why a purchase cannot be consumed. Each case says what the caller should fix.
public enum ConsumeError: Error, Sendable, Equatable {
    /// No purchase with this original transaction id is recorded (yet): upload it first.
    case unknownPurchase(originalTransactionID: String)
    /// Only consumables can be consumed.
    case notConsumable(originalTransactionID: String, productType: ProductType)
    /// The purchase belongs to another app user (or to nobody yet).
    case belongsToAnotherUser(originalTransactionID: String)
    /// Consuming is done once; the first consumption time is given.
    case alreadyConsumed(originalTransactionID: String, consumedAt: Instant)
    /// Refunded or revoked purchases are not delivered.
    case refunded(originalTransactionID: String)
}

extension ConsumeError {
    /// What went wrong and what to do, as the API and the console say it; `productType` names a product type the
    /// way the caller's surface writes it.
    public func description(productType name: (ProductType) -> String) -> String {
        switch self {
        case .unknownPurchase(let id): "no purchase \(id) is recorded; upload the transaction first"
        case .notConsumable(let id, let type): "purchase \(id) is a \(name(type)) product; only consumables are consumed"
        case .belongsToAnotherUser(let id): "purchase \(id) belongs to another user; restore it to this user first"
        case .alreadyConsumed(let id, let at): "purchase \(id) was already consumed at \(at.rfc3339); deliver it once"
        case .refunded(let id): "purchase \(id) was refunded or revoked; do not deliver it"
        }
    }
}

/// The consume operation (seed 002): the developer marks a delivered consumable as consumed.
public enum ConsumptionRules {
    /// The event to append when `appUserID` consumes the purchase recorded as `record`, or why not.
    ///
    /// `record` is the `PurchaseRecord` of the original transaction id (nil or unknown when nothing is recorded).
    /// The check order is fixed so a client always gets the same error for the same state: unknown, type, owner,
    /// refund, already consumed.
    public static func consume(
        _ record: PurchaseRecord?, originalTransactionID: String, by appUserID: String, at instant: Instant
    ) -> Result<LedgerEvent, ConsumeError> {
        guard let record, let details = record.details else {
            return .failure(.unknownPurchase(originalTransactionID: originalTransactionID))
        }
        guard details.productType == .consumable else {
            return .failure(.notConsumable(originalTransactionID: originalTransactionID, productType: details.productType))
        }
        guard record.ownerUserID == appUserID else {
            return .failure(.belongsToAnotherUser(originalTransactionID: originalTransactionID))
        }
        if record.isWithdrawn { return .failure(.refunded(originalTransactionID: originalTransactionID)) }
        if let consumedAt = record.consumedAt {
            return .failure(.alreadyConsumed(originalTransactionID: originalTransactionID, consumedAt: consumedAt))
        }
        return .success(
            .consumed(
                Consumption(
                    appUserID: appUserID, productID: details.productID, transactionID: details.transactionID,
                    originalTransactionID: originalTransactionID, consumedAt: instant)))
    }
}
