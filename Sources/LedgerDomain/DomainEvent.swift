import UTCTime

/// An event as the ledger recorded it: the typed fact plus where and when it was written.
public struct DomainEvent: Sendable, Equatable {
    /// The tenant (app) the event belongs to.
    public var appID: String
    /// Global position in the log: the order projections apply events in.
    public var position: Int64
    /// Business time: when the fact happened according to its source (Apple's signed / purchase date).
    public var occurredAt: Instant
    /// When the ledger committed the event: the clock of as-of queries ("what the ledger knew then").
    public var recordedAt: Instant
    public var event: LedgerEvent

    public init(appID: String, position: Int64, occurredAt: Instant, recordedAt: Instant, event: LedgerEvent) {
        self.appID = appID
        self.position = position
        self.occurredAt = occurredAt
        self.recordedAt = recordedAt
        self.event = event
    }
}

/// A projection's pure state transition, run by the projection runtime and by replay alike.
///
/// State is kept per key (e.g. per original transaction id) so that each row stays small and an event touches
/// only the rows it names. Reducers here are written to converge: applying the same events in any order, with
/// duplicates, gives the same state, because each fact carries its own time and stale facts lose.
public protocol ProjectionReducer: Sendable {
    associatedtype State: Codable, Equatable, Sendable
    /// Stable name (table / checkpoint key), e.g. "subscription_status".
    static var name: String { get }
    /// The keys (user id, original transaction id, month…) whose state this event changes; [] = not relevant.
    static func keys(for event: DomainEvent) -> [String]
    static func initial(key: String) -> State
    /// Folds `event` into `state`, in place (a rebuild folds millions: no copy of the state per event).
    static func apply(_ state: inout State, _ event: DomainEvent)
}

extension ProjectionReducer {
    /// `state` with `event` folded in.
    public static func apply(_ state: State, _ event: DomainEvent) -> State {
        var folded = state
        apply(&folded, event)
        return folded
    }
}

/// The state of one key of a projection, from a list of recorded events, as the ledger knew it at `asOf`.
///
/// As-of uses `recordedAt` (the ledger's commit time), not `occurredAt`: "the state as of T" is what a query
/// made at T would have answered, which is what auditors replay. `asOf == nil` folds everything. Events are
/// applied in `position` order; events whose `keys(for:)` do not contain `key` are skipped.
public func fold<R: ProjectionReducer>(_: R.Type, key: String, events: [DomainEvent], asOf: Instant?) -> R.State {
    events
        .filter { event in asOf.map { event.recordedAt <= $0 } ?? true }
        .sorted { $0.position < $1.position }
        .reduce(R.initial(key: key)) { state, event in
            R.keys(for: event).contains(key) ? R.apply(state, event) : state
        }
}

/// Every key's state of a projection from a list of recorded events (as-of as in `fold`): what a rebuild
/// writes into the projection's table.
public func foldAll<R: ProjectionReducer>(_: R.Type, events: [DomainEvent], asOf: Instant?) -> [String: R.State] {
    var states: [String: R.State] = [:]
    for event in events.filter({ e in asOf.map { e.recordedAt <= $0 } ?? true }).sorted(by: { $0.position < $1.position }) {
        apply(R.self, event, to: &states)
    }
    return states
}

/// One event applied to every state it changes, among `states` by key (missing keys start from `initial`): the
/// step of `foldAll`, for callers that fold a log incrementally.
public func apply<R: ProjectionReducer>(_: R.Type, _ event: DomainEvent, to states: inout [String: R.State]) {
    for key in Set(R.keys(for: event)) {
        states[key] = R.apply(states[key] ?? R.initial(key: key), event)
    }
}
