import LedgerDomain

/// The states of some keys of one read model, folded from events given in log order: what `foldFromLog` returns,
/// and one model's part of a rebuild's second look at the keys events outside their own stream touched
/// (`StrayFolds`).
package struct KeyFold<Model: ReadModel> {
    let wanted: Set<StateKey>
    package private(set) var states: [StateKey: (state: Model.Reducer.State, position: Int64)] = [:]

    package init(_ keys: Set<StateKey>) {
        wanted = keys
    }

    /// Folds `event` into each wanted key it names (a key named twice by one event is folded once).
    package mutating func apply(_ event: DomainEvent) {
        for key in Set(Model.Reducer.keys(for: event)) {
            let stateKey = StateKey(appID: event.appID, key: key)
            guard wanted.contains(stateKey) else { continue }
            // In place: the dictionary's entry is the state folded, not a copy taken out and put back per event.
            Self.fold(event, into: &states[stateKey, default: (Model.Reducer.initial(key: key), event.position)])
        }
    }

    private static func fold(_ event: DomainEvent, into entry: inout (state: Model.Reducer.State, position: Int64)) {
        Model.Reducer.apply(&entry.state, event)
        entry.position = event.position
    }
}
