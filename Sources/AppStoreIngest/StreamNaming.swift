import LedgerDomain

/// The event-log stream of each event, and events ready to append.
///
/// Every fact about one original transaction id goes to `otx:<original transaction id>`: folding that stream gives
/// the purchase's exact state, and appending with the stream's expected version guards a decision taken on it
/// (consume, restore). Identity events naming several original transaction ids are split into one event per id,
/// so each lands in the stream it is about. A notification record without a transaction goes to
/// `notification:<notification UUID>` (TEST, summaries, external purchase tokens, app-level notifications).
/// External purchases use their payment id, which the projections treat as the original transaction id.
public enum StreamNaming {
    /// One event to append: its stream, the event, and the idempotency key to append it under.
    public typealias Append = (stream: String, event: LedgerEvent, idempotencyKey: String)

    public static func stream(originalTransactionID: String) -> String { "otx:\(originalTransactionID)" }

    public static func stream(notificationUUID: String) -> String { "notification:\(notificationUUID)" }

    /// An identity event naming several original transaction ids as one event per id, in the event's order
    /// (duplicates dropped); any other event unchanged. An identity event naming none yields nothing: it links
    /// nothing and has no stream.
    public static func splitPerOriginalTransaction(_ event: LedgerEvent) -> [LedgerEvent] {
        switch event {
        case .linked(let link):
            return unique(link.originalTransactionIDs).map { id in
                var one = link
                one.originalTransactionIDs = [id]
                return .linked(one)
            }
        case .transferred(let transfer):
            return unique(transfer.originalTransactionIDs).map { id in
                var one = transfer
                one.originalTransactionIDs = [id]
                return .transferred(one)
            }
        default:
            return [event]
        }
    }

    /// The appends for `events`, in order: identity events split, each event in its stream, keys unique.
    ///
    /// A split event keeps the whole event's key with `:<original transaction id>` appended: deterministic (the
    /// same restore yields the same keys) and unique (the parts differ by id, and the whole key names the whole
    /// fact). Any other event keeps its own `idempotencyKey`. An append whose key already occurs earlier in the
    /// list is dropped (e.g. the same link from an upload and from `appAccountToken`): the log would refuse it.
    public static func appends(for events: [LedgerEvent]) -> [Append] {
        var seen: Set<String> = []
        var appends: [Append] = []
        for event in events {
            let parts = splitPerOriginalTransaction(event)
            let isSplit = event.originalTransactionIDs.count > 1
            for part in parts {
                guard let stream = stream(of: part) else { continue }
                let key = isSplit
                    ? "\(event.idempotencyKey):\(part.originalTransactionIDs.first ?? "")"
                    : part.idempotencyKey
                guard seen.insert(key).inserted else { continue }
                appends.append((stream: stream, event: part, idempotencyKey: key))
            }
        }
        return appends
    }

    /// The stream of an event about at most one original transaction id; nil for an identity event naming none.
    public static func stream(of event: LedgerEvent) -> String? {
        if case .appStoreNotification(let n) = event {
            return n.originalTransactionID.map { stream(originalTransactionID: $0) }
                ?? stream(notificationUUID: n.notificationUUID)
        }
        return event.originalTransactionIDs.first.map { stream(originalTransactionID: $0) }
    }

    private static func unique(_ ids: [String]) -> [String] {
        var seen: Set<String> = []
        return ids.filter { seen.insert($0).inserted }
    }
}
