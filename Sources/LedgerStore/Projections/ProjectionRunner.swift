import Foundation
import LedgerDomain
import Logging
import PostgresClient
import UTCTime

/// Applies the log to one read model, a batch per transaction.
///
/// Each batch runs in one transaction that (1) takes a transaction-level advisory lock named after the projection —
/// if another instance holds it, this one does nothing, so one worker is active per projection however many
/// instances run; (2) reads the checkpoint; (3) reads the next events in commit-safe order, whole transactions;
/// (4) folds them onto the states they touch, loaded with one query; (5) writes those states with one statement
/// per table, and the new checkpoint. A crash anywhere rolls all of it back.
package struct ProjectionRunner<Model: ReadModel>: ProjectionRunning {
    package var name: String { Model.name }
    package let batchSize: Int

    package init(_ model: Model.Type = Model.self, batchSize: Int = 500) {
        self.batchSize = batchSize
    }

    package func applyBatch(on connection: PostgresConnection, before cut: UInt64?) throws -> ProjectionBatch {
        try connection.transaction { connection in
            guard try ProjectionCheckpoints.tryLock(name, on: connection) else { return ProjectionBatch(events: 0, checkpoint: nil) }
            let checkpoint = try ProjectionCheckpoints.checkpoint(name, on: connection)
            let events = try Self.nextEvents(after: checkpoint, before: cut, limit: batchSize, on: connection)
            guard let last = events.last else { return ProjectionBatch(events: 0, checkpoint: checkpoint) }
            // Decoded once: the payload's JSON is the costliest part of a batch after the state writes.
            let decoded = events.compactMap { DomainEventDecoding.decode($0) }
            let keys = Set(decoded.flatMap { event in Model.Reducer.keys(for: event).map { StateKey(appID: event.appID, key: $0) } })
            let loaded = try Model.load(Array(keys), schema: "ledger", through: checkpoint, on: connection)
            var states: [StateKey: (state: Model.Reducer.State, position: Int64)] = [:]
            for event in decoded {
                for key in Set(Model.Reducer.keys(for: event)) {
                    let stateKey = StateKey(appID: event.appID, key: key)
                    let current = states[stateKey]?.state ?? loaded[stateKey] ?? Model.Reducer.initial(key: key)
                    states[stateKey] = (Model.Reducer.apply(current, event), max(states[stateKey]?.position ?? 0, event.position))
                }
            }
            try Model.save(states, schema: "ledger", on: connection)
            try ProjectionCheckpoints.set(name, last.checkpoint, on: connection)
            return ProjectionBatch(events: events.count, checkpoint: last.checkpoint)
        }
    }

    /// Up to `limit` events after `checkpoint` in commit-safe order (of transactions below `cut`, when given),
    /// completed with the rest of the last one's transaction: a batch never ends inside a transaction.
    /// Notification records carry no fact a reducer reads (every fact in them is also a typed event), so their
    /// large payloads are not fetched.
    package static func nextEvents(
        after checkpoint: LogCheckpoint, before cut: UInt64?, limit: Int, apps: [String]? = nil,
        on connection: PostgresConnection
    ) throws -> [RecordedEvent] {
        let after = TransactionIDValue(value: checkpoint.transactionID)
        let horizon = try CommitHorizon.read(on: connection)
        let bound = TransactionIDValue(value: cut.map { min($0, horizon) } ?? horizon)
        // Only these apps' events (the webhook fan-out's apps with endpoints): a statement of its own, so that the
        // projections' plan has no condition it does not need.
        let onlyApps = apps.map { TextArray($0) }
        let ofApps = onlyApps == nil ? "" : "AND app_id = ANY($4::text[])"
        let rest = onlyApps == nil ? "" : "AND app_id = ANY($3::text[])"
        var bindings = [after.postgresValue, checkpoint.position.postgresValue, bound.postgresValue]
        if let onlyApps { bindings.append(onlyApps.postgresValue) }
        var events = try EventColumns.decode(
            connection.query(
                prepared: PostgresQuery(
                    unsafeSQL: """
                        SELECT \(EventColumns.listSkippingRecords) FROM ledger.events
                        WHERE (transaction_id, position) > ($1, $2)
                          AND transaction_id < $3::xid8 \(ofApps)
                        ORDER BY transaction_id, position LIMIT \(limit)
                        """, bindings: bindings)))
        if events.count == limit, let last = events.last {
            var restBindings = [TransactionIDValue(value: last.transactionID).postgresValue, last.position.postgresValue]
            if let onlyApps { restBindings.append(onlyApps.postgresValue) }
            events += try EventColumns.decode(
                connection.query(
                    prepared: PostgresQuery(
                        unsafeSQL: """
                            SELECT \(EventColumns.listSkippingRecords) FROM ledger.events
                            WHERE transaction_id = $1 AND position > $2 \(rest)
                            ORDER BY position
                            """, bindings: restBindings)))
        }
        return events
    }
}

/// A projection runner with its read model's type erased, so a worker can hold a list of them.
public protocol ProjectionRunning: Sendable {
    var name: String { get }
    /// The most events one batch reads (plus the rest of its last transaction); a batch that reads fewer has caught up.
    var batchSize: Int { get }
    /// Applies one batch of events of transactions below `cut` (all when nil), in one transaction.
    func applyBatch(on connection: PostgresConnection, before cut: UInt64?) throws -> ProjectionBatch
}

/// What one committed batch did.
public struct ProjectionBatch: Sendable, Equatable {
    /// How many events it read (0: caught up, or another instance is working).
    public var events: Int
    /// The projection's checkpoint after it; nil when another instance holds the projection.
    public var checkpoint: LogCheckpoint?
}

extension ProjectionRunning {
    /// Applies one batch; returns how many events it read (0: caught up, or another instance is working).
    public func runBatch(on connection: PostgresConnection, before cut: UInt64? = nil) throws -> Int {
        try applyBatch(on: connection, before: cut).events
    }
}

/// Turns stored events into domain events. Events that are not domain events (other writers' types, or a newer
/// schema this build cannot read) are skipped by projections, never fatal.
package enum DomainEventDecoding {
    package static func decode(_ recorded: RecordedEvent) -> DomainEvent? {
        decode(
            appID: recorded.appID, position: recorded.position, type: recorded.type, schemaVersion: recorded.schemaVersion,
            payload: recorded.payload, occurredAt: recorded.occurredAt.microsecondsSinceEpoch,
            recordedAt: recorded.recordedAt.microsecondsSinceEpoch)
    }

    package static func decode(
        appID: String, position: Int64, type: String, schemaVersion: Int32, payload: String,
        occurredAt: Int64, recordedAt: Int64
    ) -> DomainEvent? {
        guard let event = try? LedgerEvent.decode(type: type, schemaVersion: schemaVersion, payload: payload) else { return nil }
        return DomainEvent(
            appID: appID, position: position, occurredAt: Instant(microsecondsSinceEpoch: occurredAt),
            recordedAt: Instant(microsecondsSinceEpoch: recordedAt), event: event)
    }
}
