import LedgerDomain
import PostgresClient
import UTCTime

/// Records domain events that arrive from outside (App Store notifications, SDK uploads, receipts, imports): each
/// to its stream, with its idempotency key, so the same fact delivered again — by another path, twice, concurrently
/// or out of order — is recorded once.
public struct EventRecorder: Sendable {
    public let store: EventStore

    public init(store: EventStore) { self.store = store }

    /// What one `record` call did.
    public struct Outcome: Sendable, Equatable {
        /// Events newly written.
        public var recorded: Int
        /// Events that were already in the log (same idempotency key).
        public var alreadyKnown: Int
        /// The log positions of all the events, new or already known (to wait until projections include them).
        public var positions: [Int64] = []
    }

    /// Appends `events` (stream, event, idempotency key), keeping their order within each stream.
    /// `occurredAt` is the business time of each event (Apple's signed or purchase date).
    public func record(
        app appID: String, _ events: [(stream: String, event: LedgerEvent, idempotencyKey: String)],
        occurredAt: @Sendable (LedgerEvent) -> Instant, metadata: EventMetadata
    ) async throws -> Outcome {
        var streams: [String] = []
        var byStream: [String: [NewEvent]] = [:]
        for (stream, event, key) in events {
            if byStream[stream] == nil { streams.append(stream) }
            byStream[stream, default: []].append(NewEvent(event, idempotencyKey: key, occurredAt: occurredAt(event), metadata: metadata))
        }
        // One submission: the streams commit together with other requests' appends, in this order (group commit).
        let appends = streams.map { EventStore.StreamAppend(streamID: $0, expected: .any, events: byStream[$0] ?? []) }
        var outcome = Outcome(recorded: 0, alreadyKnown: 0)
        for (append, result) in zip(appends, try await store.appendEach(app: appID, appends)) {
            let result = try result.get()
            outcome.recorded += result.appendedCount
            outcome.alreadyKnown += append.events.count - result.appendedCount
            outcome.positions += result.positions
        }
        return outcome
    }
}
