import LedgerDomain
import PostgresClient

/// One state of a projection: the app and the reducer's key (an original transaction id for every read model).
package struct StateKey: Hashable, Sendable {
    package var appID: String
    package var key: String

    package init(appID: String, key: String) {
        self.appID = appID
        self.key = key
    }
}

/// Where a projection's states live: its typed tables, the rows of one state, and the states of keys read back for
/// the next batch to fold onto. The live worker (`ProjectionRunner`) and the rebuild (`ReadModelRebuild`) write the
/// same rows, the first with an upsert per table and batch, the second with COPY.
package protocol ReadModel: Sendable {
    associatedtype Reducer: ProjectionReducer
    /// The tables, in the order `rows` gives their rows.
    static var tables: [ReadModelTable] { get }
    /// One state's rows per table; `position` is the greatest log position folded into it. Without `foldState` the
    /// `fold_state` column (where a table has one) is left NULL: a rebuild writes only what queries read, and the
    /// state is folded again from the log the first time it is needed (`load`).
    static func rows(appID: String, state: Reducer.State, position: Int64, foldState: Bool) -> [[[String?]]]
    /// The states of `keys` stored in `schema` (keys without a row are left out). A row without its fold state is
    /// folded from its stream, with the events at or before `through` in commit order (all when nil): a row a
    /// rebuild wrote and no event has touched since.
    static func load(_ keys: [StateKey], schema: String, through: LogCheckpoint?, on connection: PostgresConnection)
        throws -> [StateKey: Reducer.State]
    /// A rebuild's folder of this model: `ModelFolder<Self>()`, made where `Self` is concrete so that the compiler
    /// specializes the fold loop for it (a rebuild runs it once per event).
    static func folder() -> any ModelFolding
}

extension ReadModel {
    package static var name: String { Reducer.name }

    /// Every read model's key is an original transaction id, whose events all lie in its purchase stream
    /// (`StreamNaming`): the rebuild folds stream by stream and writes a state once its stream has ended.
    package static func ownStream(of key: String) -> String { LedgerStreams.purchase(originalTransactionID: key) }

    /// Writes the states with one statement per table.
    package static func save(_ states: [StateKey: (state: Reducer.State, position: Int64)], schema: String,
                             on connection: PostgresConnection) throws {
        guard !states.isEmpty else { return }
        var rows = Array(repeating: [[String?]](), count: tables.count)
        for (key, entry) in states {
            for (index, tableRows) in Self.rows(appID: key.appID, state: entry.state, position: entry.position, foldState: true).enumerated() {
                rows[index] += tableRows
            }
        }
        for (table, tableRows) in zip(tables, rows) { try table.upsert(tableRows, schema: schema, on: connection) }
    }

    /// The states of `keys` folded from their own streams: every event at or before `through` in commit order (all
    /// when nil). Exact for a key no event outside its stream has touched, which is every key whose row lacks its
    /// fold state (see `FoldPass`).
    package static func foldFromLog(_ keys: [StateKey], through: LogCheckpoint?, on connection: PostgresConnection) throws
        -> [StateKey: Reducer.State] {
        guard !keys.isEmpty else { return [:] }
        let bound = through.map { TransactionIDValue(value: $0.transactionID) }
        let events = try EventColumns.decode(connection.query("""
            SELECT \(unescaped: EventColumns.listSkippingRecords) FROM ledger.events
            WHERE (app_id, stream_id) IN (SELECT * FROM unnest(\(TextArray(keys.map(\.appID))), \(TextArray(keys.map { ownStream(of: $0.key) }))))
              AND (\(bound)::xid8 IS NULL OR (transaction_id, position) <= (\(bound)::xid8, \(through?.position ?? 0)))
            ORDER BY position
            """)).compactMap(DomainEventDecoding.decode)
        var states: [StateKey: Reducer.State] = [:]
        for key in keys { states[key] = Reducer.initial(key: key.key) }
        for event in events {
            for key in Set(Reducer.keys(for: event)) {
                let stateKey = StateKey(appID: event.appID, key: key)
                if let state = states[stateKey] { states[stateKey] = Reducer.apply(state, event) }
            }
        }
        return states
    }

    /// `SELECT <columns> FROM <schema>.<table> JOIN` the keys: the rows of `keys`, for `load`.
    package static func rows(of keys: [StateKey], table: ReadModelTable, columns: String, schema: String,
                             on connection: PostgresConnection) throws -> PostgresRows {
        try connection.query("""
            SELECT \(unescaped: columns) FROM \(unescaped: table.qualified(schema)) t
            JOIN unnest(\(TextArray(keys.map(\.appID))), \(TextArray(keys.map(\.key)))) AS k(app_id, original_transaction_id)
              ON t.app_id = k.app_id AND t.original_transaction_id = k.original_transaction_id
            """)
    }
}
