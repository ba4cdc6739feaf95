import LedgerDomain
import LedgerStore
import UTCTime

/// Restore: links the store's transactions to the app user who restores them, under the app's transfer policy.
///
/// The restored purchases' states come from their own streams (exact); their current owners' other purchases, needed
/// for "transfer only if the old owner has nothing active", come from the projection tables (which may lag a moment).
/// The link / transfer events, one per purchase, are appended to the purchases' streams in one transaction with
/// each stream's version as the expectation: all or nothing, and never on a state that changed meanwhile.
package struct RestoreOperation: Sendable {
    package let store: EventStore
    static let attempts = 5

    package init(store: EventStore) { self.store = store }

    /// Returns the positions of the events appended (empty when everything already belonged to the user); throws
    /// `RestoreRefusal` (with a message for the user) when the policy refuses.
    @discardableResult
    package func restore(
        app appID: String, originalTransactionIDs: [String], to appUserID: String, policy: TransferPolicy,
        at instant: Instant, metadata: EventMetadata = EventMetadata()
    ) async throws -> [Int64] {
        let ids = Array(Set(originalTransactionIDs)).sorted()
        for _ in 0..<Self.attempts {
            var versions: [String: Int64] = [:]
            var subscriptions: [SubscriptionSummary] = []
            var purchases: [PurchaseSummary] = []
            for id in ids {
                let recorded = try await store.readStream(app: appID, stream: LedgerStreams.purchase(originalTransactionID: id))
                let events = recorded.compactMap(DomainEventDecoding.decode)
                versions[id] = recorded.last?.streamVersion ?? 0
                subscriptions.append(fold(SubscriptionStatusReducer.self, key: id, events: events, asOf: nil).summary)
                purchases.append(fold(PurchaseRecordReducer.self, key: id, events: events, asOf: nil).summary)
            }
            let owners = Set((subscriptions.compactMap(\.ownerUserID) + purchases.compactMap(\.ownerUserID)).filter { $0 != appUserID })
            let others = try await UserQueries(pool: store.pool).summaries(app: appID, owners: owners).excluding(Set(ids))
            let events = try RestoreRules.restore(
                originalTransactionIDs: ids, to: appUserID, policy: policy,
                subscriptions: subscriptions + others.subscriptions,
                purchases: purchases + others.purchases, at: instant
            ).get()
            let split = events.flatMap(\.perOriginalTransaction)
            guard !split.isEmpty else { return [] }
            let appends = split.map { event -> EventStore.StreamAppend in
                let id = event.keyedOriginalTransactionID ?? ""
                return EventStore.StreamAppend(
                    streamID: LedgerStreams.purchase(originalTransactionID: id), expected: .exact(versions[id] ?? 0),
                    events: [NewEvent(event, idempotencyKey: event.idempotencyKey, occurredAt: instant, metadata: metadata)])
            }
            do {
                return try await store.appendAtomically(app: appID, appends).flatMap(\.positions)
            } catch EventStoreError.versionConflict {
                continue  // a restored purchase changed meanwhile: decide again
            }
        }
        throw EventStoreError.contention(appID: appID, streamID: "restore")
    }
}

extension LedgerEvent {
    /// The one original transaction a split identity event names.
    var keyedOriginalTransactionID: String? {
        switch self {
        case .linked(let link): link.originalTransactionIDs.first
        case .transferred(let transfer): transfer.originalTransactionIDs.first
        default: nil
        }
    }
}
