import LedgerDomain

/// The event-log stream of each event (named by `LedgerStreams`), and events ready to append.
///
/// Every fact about one original transaction id goes to `otx:<original transaction id>`: folding that stream gives
/// the purchase's exact state, and appending with the stream's expected version guards a decision taken on it
/// (consume, restore). Identity events naming several original transaction ids are split into one event per id,
/// so each lands in the stream it is about. A notification record without a transaction goes to
/// `notification:<notification UUID>` (TEST, summaries, external purchase tokens, app-level notifications); a user's
/// consent to consumption answers to `user:<app user id>`.
/// External purchases use their payment id, which the projections treat as the original transaction id.
public enum StreamNaming {
    /// One event to append: its stream, the event, and the idempotency key to append it under.
    public typealias Append = (stream: String, event: LedgerEvent, idempotencyKey: String)

    /// An identity event naming several original transaction ids as one event per id (sorted by id); any other
    /// event unchanged. The domain's `LedgerEvent.perOriginalTransaction`, so this module and the restore
    /// operation split the same event the same way.
    public static func splitPerOriginalTransaction(_ event: LedgerEvent) -> [LedgerEvent] {
        event.perOriginalTransaction
    }

    /// The appends for `events`, in order: identity events split, each event in its stream.
    ///
    /// Every append uses its own event's `idempotencyKey`. For a split part that key names the part's one original
    /// transaction id (`link:<user>:<otid>:<instant>`), so the parts' keys are deterministic and distinct, and equal
    /// to the keys the restore operation appends the same parts under. An append whose key already occurs earlier
    /// in the list is dropped (e.g. the same link from an upload and from `appAccountToken`): the log would refuse
    /// it anyway. An identity event naming no original transaction id links nothing and is dropped.
    public static func appends(for events: [LedgerEvent]) -> [Append] {
        var seen: Set<String> = []
        var appends: [Append] = []
        for part in events.flatMap(splitPerOriginalTransaction) {
            guard let stream = stream(of: part) else { continue }
            let key = part.idempotencyKey
            guard seen.insert(key).inserted else { continue }
            appends.append((stream: stream, event: part, idempotencyKey: key))
        }
        return appends
    }

    /// The stream of an event about at most one original transaction id; nil for an identity event naming none.
    public static func stream(of event: LedgerEvent) -> String? {
        if case .appStoreNotification(let n) = event {
            return n.originalTransactionID.map(LedgerStreams.purchase(originalTransactionID:))
                ?? LedgerStreams.notification(uuid: n.notificationUUID)
        }
        switch event {
        case .consumptionConsentRecorded, .grantGiven, .grantRevoked: return event.appUserID.map(LedgerStreams.user(appUserID:))
        default: break
        }
        return event.originalTransactionIDs.first.map(LedgerStreams.purchase(originalTransactionID:))
    }
}
