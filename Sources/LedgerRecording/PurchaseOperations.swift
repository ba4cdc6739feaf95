import LedgerDomain
import LedgerStore
import UTCTime

/// Commands on one purchase, decided from the purchase's own stream (`otx:<original transaction id>`, which holds
/// every fact about it) rather than from a projection that may lag, and appended with that stream's version as the
/// expectation: two concurrent commands cannot both act on the same state.
package struct PurchaseOperations: Sendable {
    package let store: EventStore
    static let attempts = 5

    package init(store: EventStore) { self.store = store }

    /// The purchase's current state, folded from its stream.
    package func record(app appID: String, originalTransactionID: String) async throws -> (PurchaseRecord, version: Int64) {
        let recorded = try await store.readStream(app: appID, stream: LedgerStreams.purchase(originalTransactionID: originalTransactionID))
        let state = fold(
            PurchaseRecordReducer.self, key: originalTransactionID,
            events: recorded.compactMap(DomainEventDecoding.decode), asOf: nil)
        return (state, recorded.last?.streamVersion ?? 0)
    }

    /// Marks a consumable as consumed by `appUserID`. Errors say why not: unknown purchase, not a consumable,
    /// another user's, refunded, or already consumed (also when a concurrent call consumed it first).
    @discardableResult
    package func consume(
        app appID: String, originalTransactionID: String, by appUserID: String,
        at instant: Instant, metadata: EventMetadata = EventMetadata()
    ) async throws -> Int64 {
        for _ in 0..<Self.attempts {
            let (record, version) = try await record(app: appID, originalTransactionID: originalTransactionID)
            let event = try ConsumptionRules.consume(
                version == 0 ? nil : record, originalTransactionID: originalTransactionID,
                by: appUserID, at: instant
            ).get()
            do {
                let result = try await store.append(
                    app: appID, stream: LedgerStreams.purchase(originalTransactionID: originalTransactionID), expected: .exact(version),
                    events: [NewEvent(event, idempotencyKey: event.idempotencyKey, occurredAt: instant, metadata: metadata)])
                if result.isDuplicate {
                    throw ConsumeError.alreadyConsumed(originalTransactionID: originalTransactionID, consumedAt: instant)
                }
                return result.positions[0]
            } catch EventStoreError.versionConflict {
                continue  // something happened to the purchase meanwhile: decide again on the new state
            }
        }
        throw EventStoreError.contention(appID: appID, streamID: LedgerStreams.purchase(originalTransactionID: originalTransactionID))
    }
}
