import LedgerDomain

/// The projections the ledger keeps, by name. Adding a reducer to `reducers` is all it takes to have it kept
/// current by the workers and covered by `ledger replay`.
public enum ProjectionCatalog {
    static let reducers: [any ProjectionReducer.Type] = [
        SubscriptionStatusReducer.self,
        PurchaseRecordReducer.self,
        MonthlyPayingUsersReducer.self,
    ]

    public static var names: [String] { reducers.map { $0.name } }

    /// Runners for the named projections (all when `names` is nil), writing to `table`, `batchSize` events per
    /// transaction.
    public static func runners(_ names: [String]? = nil, table: ProjectionTable = .live, batchSize: Int = 500) -> [any ProjectionRunning] {
        reducers.filter { names?.contains($0.name) ?? true }.map { runner(for: $0, table: table, batchSize: batchSize) }
    }

    private static func runner<R: ProjectionReducer>(for reducer: R.Type, table: ProjectionTable, batchSize: Int) -> any ProjectionRunning {
        ProjectionRunner(R.self, batchSize: batchSize, table: table)
    }

    /// One key's state of a projection folded from `events`, as stored JSON (for `ledger replay --as-of`).
    public static func stateJSON(projection: String, key: String, events: [DomainEvent]) throws -> String {
        guard let reducer = reducers.first(where: { $0.name == projection }) else {
            throw EventStoreError.invalidEvent("unknown projection \(projection); choose one of \(names.joined(separator: ", "))")
        }
        return json(reducer, key: key, events: events)
    }

    private static func json<R: ProjectionReducer>(_ reducer: R.Type, key: String, events: [DomainEvent]) -> String {
        StateCodec.encode(fold(R.self, key: key, events: events, asOf: nil))
    }
}
