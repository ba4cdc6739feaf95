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
    /// One state's rows per table; `position` is the greatest log position folded into it.
    static func rows(appID: String, state: Reducer.State, position: Int64) -> [[[String?]]]
    /// The stored states of `keys` in `schema` (keys without a row are left out).
    static func load(_ keys: [StateKey], schema: String, on connection: PostgresConnection) throws -> [StateKey: Reducer.State]
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
            for (index, tableRows) in Self.rows(appID: key.appID, state: entry.state, position: entry.position).enumerated() {
                rows[index] += tableRows
            }
        }
        for (table, tableRows) in zip(tables, rows) { try table.upsert(tableRows, schema: schema, on: connection) }
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
