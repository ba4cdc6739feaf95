import LedgerDomain

/// The projections the ledger keeps, by name. Adding a read model to `models` is all it takes to have it kept
/// current by the workers and covered by `ledger replay`.
public enum ProjectionCatalog {
    static let models: [any ReadModel.Type] = [
        SubscriptionsReadModel.self,
        PurchasesReadModel.self,
        PayingUsersReadModel.self,
        GrantsReadModel.self
    ]

    public static var names: [String] { models.map { $0.name } }

    /// Every read model's tables, in the `ledger` schema (the benchmarks measure PostgreSQL writing the same rows).
    public static var tableNames: [String] { models.flatMap { $0.tables.map(\.name) } }

    /// The read models of the named projections (all when `names` is nil).
    static func models(_ names: [String]?) -> [any ReadModel.Type] {
        models.filter { names?.contains($0.name) ?? true }
    }

    /// Runners for the named projections (all when `names` is nil), `batchSize` events per transaction.
    public static func runners(_ names: [String]? = nil, batchSize: Int = 500) -> [any ProjectionRunning] {
        models(names).map { runner(for: $0, batchSize: batchSize) }
    }

    private static func runner<Model: ReadModel>(for model: Model.Type, batchSize: Int) -> any ProjectionRunning {
        ProjectionRunner(Model.self, batchSize: batchSize)
    }

    /// One key's state of a projection folded from `events`, as JSON (for `ledger replay --as-of`).
    public static func stateJSON(projection: String, key: String, events: [DomainEvent]) throws -> String {
        guard let model = models.first(where: { $0.name == projection }) else {
            throw EventStoreError.invalidEvent("unknown projection \(projection); choose one of \(names.joined(separator: ", "))")
        }
        return json(model, key: key, events: events)
    }

    private static func json<Model: ReadModel>(_ model: Model.Type, key: String, events: [DomainEvent]) -> String {
        StateCodec.encode(fold(Model.Reducer.self, key: key, events: events, asOf: nil))
    }
}
