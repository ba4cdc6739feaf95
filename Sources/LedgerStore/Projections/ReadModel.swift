import LedgerDomain
import PostgresClient

/// One state of a projection: the app and the reducer's key (an original transaction id, or an app user id for
/// `grants`).
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
    /// Writes one state's rows, table by table in `tables`' order, into `rows`; `position` is the greatest log
    /// position folded into it. Without `foldState` the `fold_state` column (where a table has one) is left NULL: a
    /// rebuild writes only what queries read, and the state is folded again from the log the first time it is
    /// needed (`load`).
    static func write(appID: String, state: Reducer.State, position: Int64, foldState: Bool, into rows: inout some RowSink) throws
    /// The states of `keys` stored in `schema` (keys without a row are left out). A row without its fold state is
    /// folded from its stream, with the events at or before `through` in commit order (all when nil): a row a
    /// rebuild wrote and no event has touched since.
    static func load(_ keys: [StateKey], schema: String, through: LogCheckpoint?, on connection: PostgresConnection)
        throws -> [StateKey: Reducer.State]
    /// A rebuild's folder of this model: its `Folder`, a `ConcreteFolder` (see there why not `ModelFolder<Self>`).
    static func folder() -> any ModelFolding
    /// The stream that holds the events about `key`: the rebuild folds stream by stream and writes a state once its
    /// stream has ended; an event about `key` in another stream is folded again afterwards (`FoldPass`).
    static func ownStream(of key: String) -> String
    /// Whether `stream` is `ownStream(of: key)`, without building the name (the rebuild asks once per event).
    static func isOwnStream(_ stream: Substring, of key: String) -> Bool
}

extension ReadModel {
    package static var name: String { Reducer.name }

    /// A read model keyed by original transaction id (all but `grants`): its events lie in the purchase stream
    /// (`StreamNaming`).
    package static func ownStream(of key: String) -> String { LedgerStreams.purchase(originalTransactionID: key) }

    package static func isOwnStream(_ stream: Substring, of key: String) -> Bool {
        LedgerStreams.isPurchase(stream, originalTransactionID: key)
    }

    /// Writes the states with one statement per table.
    package static func save(
        _ states: [StateKey: (state: Reducer.State, position: Int64)], schema: String,
        on connection: PostgresConnection
    ) throws {
        guard !states.isEmpty else { return }
        var rows = TextRows(tables)
        for (key, entry) in states {
            try write(appID: key.appID, state: entry.state, position: entry.position, foldState: true, into: &rows)
        }
        for (table, tableRows) in zip(tables, rows.tables) { try table.upsert(tableRows, schema: schema, on: connection) }
    }

    /// The states of `keys` folded from the log: their own streams and the events at `outside` (per key, positions of
    /// events in other streams), every event at or before `through` in commit order (all when nil), with the
    /// greatest position folded into each. Read a page at a time, so a key with a great many events is folded
    /// without holding them all. Exact for a key whose events all lie in its stream or in `outside`: every key whose
    /// row lacks its fold state, and every key a rebuild found events about outside its stream (see `FoldPass`).
    package static func foldFromLog(
        _ keys: [StateKey], outside: [StateKey: [Int64]] = [:], through: LogCheckpoint?,
        pageSize: Int = 5_000, on connection: PostgresConnection
    )
        throws -> [StateKey: (state: Reducer.State, position: Int64)]
    {
        guard !keys.isEmpty else { return [:] }
        var fold = KeyFold<Self>(Set(keys).union(outside.keys))
        try LogPages.forEach(
            streams: Set(keys.map { AppScopedID(app: $0.appID, id: ownStream(of: $0.key)) }),
            outside: Set(outside.flatMap { key, positions in positions.map { LogPages.Position(app: key.appID, position: $0) } }),
            through: through, pageSize: pageSize, on: connection
        ) { fold.apply($0) }
        return fold.states
    }

    /// `load` for a model whose one table keeps the state as JSON in `fold_state` (NULL after a rebuild: folded
    /// from the log).
    package static func loadFoldStates(_ keys: [StateKey], schema: String, through: LogCheckpoint?, on connection: PostgresConnection)
        throws -> [StateKey: Reducer.State]
    {
        guard !keys.isEmpty else { return [:] }
        var states: [StateKey: Reducer.State] = [:]
        var unfolded: [StateKey] = []
        for row in try rows(
            of: keys, table: tables[0], columns: "t.app_id, t.\(tables[0].key[1]), t.fold_state::text", schema: schema,
            on: connection)
        {
            let key = StateKey(appID: try row.decode(String.self, at: 0), key: try row.decode(String.self, at: 1))
            guard let text = try row.decode(String?.self, at: 2) else {
                unfolded.append(key)
                continue
            }
            states[key] = try StateCodec.decode(Reducer.State.self, from: text)
        }
        for (key, folded) in try foldFromLog(unfolded, through: through, on: connection) { states[key] = folded.state }
        return states
    }

    /// `SELECT <columns> FROM <schema>.<table> JOIN` the keys: the rows of `keys`, for `load` (the table's key is the
    /// app and the reducer's key, then anything else).
    package static func rows(
        of keys: [StateKey], table: ReadModelTable, columns: String, schema: String,
        on connection: PostgresConnection
    ) throws -> PostgresRows {
        let key = table.key[1]
        return try connection.query(
            prepared: """
                SELECT \(unescaped: columns) FROM \(unescaped: table.qualified(schema)) t
                JOIN unnest(\(TextArray(keys.map(\.appID))), \(TextArray(keys.map(\.key)))) AS k(app_id, key)
                  ON t.app_id = k.app_id AND t.\(unescaped: key) = k.key
                """)
    }
}
