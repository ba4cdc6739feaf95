extension LedgerEvent {
    /// The event as one event per original transaction, so that every fact about a purchase lands in that
    /// purchase's own stream (its fold is then complete, and an append with its version guards it). Only identity
    /// events name several original transactions; every other event is returned unchanged. Split events keep
    /// deterministic, distinct idempotency keys (each key names its one transaction).
    public var perOriginalTransaction: [LedgerEvent] {
        switch self {
        case .linked(let link) where link.originalTransactionIDs.count > 1:
            return link.originalTransactionIDs.sorted().map { id in
                var one = link
                one.originalTransactionIDs = [id]
                return .linked(one)
            }
        case .transferred(let transfer) where transfer.originalTransactionIDs.count > 1:
            return transfer.originalTransactionIDs.sorted().map { id in
                var one = transfer
                one.originalTransactionIDs = [id]
                return .transferred(one)
            }
        default:
            return [self]
        }
    }
}
