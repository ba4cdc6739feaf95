import LedgerDomain
import PostgresClient

/// Keys of one read model that events outside their own stream touched, with those events' positions, as one worker
/// of a pass found them. Each worker sees only its own streams, so a key's events outside its stream may be split
/// over the workers: `StrayFolds` joins them before folding anything.
package protocol StrayFold: Sendable {
    var isEmpty: Bool { get }
    var modelName: String { get }
    /// Both parts of one model's: `other` is the same model's, from another worker.
    func merged(with other: any StrayFold) -> any StrayFold
    /// The keys' own streams.
    var streams: Set<AppScopedID> { get }
    /// The events about the keys outside their own streams.
    var outside: Set<LogPages.Position> { get }
    /// An empty fold of the keys.
    func fold() -> any StrayStates
}

/// One model's keys folded again, to be written over what the pass wrote for them.
package protocol StrayStates {
    mutating func apply(_ event: DomainEvent)
    func save(schema: String, on connection: PostgresConnection) throws
}

extension KeyFold: StrayStates {
    package func save(schema: String, on connection: PostgresConnection) throws {
        try Model.save(states, schema: schema, on: connection)
    }
}

/// A rebuild's second look, after its pass: every key that events outside its own stream touched is folded again
/// from its stream and those events, for every model at once, and upserted into `schema`'s tables. The models' keys
/// name the same events (a renewal outside its purchase's stream is about its subscription, its purchase and its
/// paying user), so the log is read once for all of them.
package enum StrayFolds {
    package static func finish(_ found: [any StrayFold], cut: UInt64, schema: String, on connection: PostgresConnection) throws {
        var models: [any StrayFold] = []
        for part in found where !part.isEmpty {
            if let index = models.firstIndex(where: { $0.modelName == part.modelName }) {
                models[index] = models[index].merged(with: part)
            } else {
                models.append(part)
            }
        }
        guard !models.isEmpty else { return }
        var folds = models.map { $0.fold() }
        try LogPages.forEach(
            streams: models.reduce(into: []) { $0.formUnion($1.streams) },
            outside: models.reduce(into: []) { $0.formUnion($1.outside) },
            through: ProjectionCheckpoints.through(cut: cut), on: connection
        ) { event in
            for index in folds.indices { folds[index].apply(event) }
        }
        for fold in folds { try fold.save(schema: schema, on: connection) }
    }
}

/// One model's `StrayFold`: per key, the positions of the events about it outside its stream.
package struct Strays<Model: ReadModel>: StrayFold {
    let positions: [StateKey: [Int64]]

    package init(positions: [StateKey: [Int64]]) {
        self.positions = positions
    }

    package var isEmpty: Bool { positions.isEmpty }
    package var modelName: String { Model.name }

    package func merged(with other: any StrayFold) -> any StrayFold {
        guard let other = other as? Strays<Model> else { preconditionFailure("strays of \(other.modelName) merged into \(modelName)'s") }
        return Strays(positions: positions.merging(other.positions, uniquingKeysWith: +))
    }

    package var streams: Set<AppScopedID> {
        Set(positions.keys.map { AppScopedID(app: $0.appID, id: Model.ownStream(of: $0.key)) })
    }

    package var outside: Set<LogPages.Position> {
        Set(positions.flatMap { key, positions in positions.map { LogPages.Position(app: key.appID, position: $0) } })
    }

    package func fold() -> any StrayStates { KeyFold<Model>(Set(positions.keys)) }
}
