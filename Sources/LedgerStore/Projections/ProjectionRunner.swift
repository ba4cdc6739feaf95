import Foundation
import LedgerDomain
import Logging
import PostgresClient

/// Applies the log to one projection's state table, a batch per transaction.
///
/// Each batch runs in one transaction that (1) takes a transaction-level advisory lock named after the projection —
/// if another instance holds it, this one does nothing, so one worker is active per projection however many
/// instances run; (2) reads the checkpoint; (3) reads the next events in commit-safe order; (4) folds them into the
/// states they touch; (5) writes those states and the new checkpoint. A crash anywhere rolls all of it back.
public struct ProjectionRunner<Reducer: ProjectionReducer>: ProjectionRunning {
    public var name: String { Reducer.name }
    let table: ProjectionTable
    public let batchSize: Int

    public init(_ reducer: Reducer.Type = Reducer.self, batchSize: Int = 500, table: ProjectionTable = .live) {
        self.batchSize = batchSize
        self.table = table
    }

    /// Applies one batch; returns how many events it read (0: caught up, or another instance is working).
    public func runBatch(on connection: PostgresConnection) throws -> Int {
        try connection.transaction { connection in
            guard try table.tryLock(Reducer.name, on: connection) else { return 0 }
            let checkpoint = try table.checkpoint(Reducer.name, on: connection)
            let events = try EventStore.readForward(on: connection, app: nil, after: checkpoint, limit: batchSize)
            guard let last = events.last else { return 0 }
            var states: [ProjectionTable.StateKey: (state: Reducer.State, position: Int64)] = [:]
            // Decoded once: the payload's JSON is the costliest part of a batch after the state writes.
            let decoded = events.compactMap { DomainEventDecoding.decode($0) }
            let keys = decoded.flatMap { event in Reducer.keys(for: event).map { ProjectionTable.StateKey(appID: event.appID, key: $0) } }
            let loaded = try table.load(Reducer.self, keys: Set(keys), on: connection)
            for event in decoded {
                for key in Reducer.keys(for: event) {
                    let stateKey = ProjectionTable.StateKey(appID: event.appID, key: key)
                    let current = states[stateKey]?.state ?? loaded[stateKey] ?? Reducer.initial(key: key)
                    states[stateKey] = (Reducer.apply(current, event), event.position)
                }
            }
            try table.save(Reducer.self, states: states, on: connection)
            try table.setCheckpoint(Reducer.name, last.checkpoint, on: connection)
            return events.count
        }
    }
}

/// A projection runner with its reducer type erased, so a worker can hold a list of them.
public protocol ProjectionRunning: Sendable {
    var name: String { get }
    /// The most events one batch reads; a batch that reads fewer has caught up.
    var batchSize: Int { get }
    func runBatch(on connection: PostgresConnection) throws -> Int
}

/// Turns stored events into domain events. Events that are not domain events (other writers' types, or a newer
/// schema this build cannot read) are skipped by projections, never fatal.
package enum DomainEventDecoding {
    package static func decode(_ recorded: RecordedEvent) -> DomainEvent? {
        guard let event = try? LedgerEvent.decode(type: recorded.type, schemaVersion: recorded.schemaVersion, payload: recorded.payload) else {
            return nil
        }
        return DomainEvent(appID: recorded.appID, position: recorded.position,
                           occurredAt: Instant(microsecondsSinceEpoch: recorded.occurredAt.microsecondsSinceEpoch),
                           recordedAt: Instant(microsecondsSinceEpoch: recorded.recordedAt.microsecondsSinceEpoch),
                           event: event)
    }
}
