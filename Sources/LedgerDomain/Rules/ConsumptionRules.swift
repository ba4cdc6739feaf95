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
