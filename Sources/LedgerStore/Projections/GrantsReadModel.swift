import LedgerDomain
import PostgresClient

/// `ledger.user_grants`: the `grants` projection, one row per app user who was given a support grant. Unlike the
/// other read models it is keyed by app user id: a grant is about a person, not a purchase, and its events lie in
/// the user's own stream (`LedgerStreams.user`).
package enum GrantsReadModel: ReadModel {
    package typealias Reducer = GrantsReducer

    package static let tables = [
        ReadModelTable(
            name: "user_grants",
            columns: [
                .init("app_id", "text"), .init("app_user_id", "text"), .init("grants", "jsonb"), .init("fold_state", "jsonb"),
                .init("last_position", "bigint", keepsGreatest: true)
            ], key: ["app_id", "app_user_id"])
    ]

    package static func folder() -> any ModelFolding { Folder() }

    package struct Folder: ConcreteFolder { package var folder = ModelFolder<GrantsReadModel>() }

    package static func ownStream(of key: String) -> String { LedgerStreams.user(appUserID: key) }

    package static func isOwnStream(_ stream: Substring, of key: String) -> Bool { LedgerStreams.isUser(stream, appUserID: key) }

    package static func write(appID: String, state: UserGrants, position: Int64, foldState: Bool, into rows: inout some RowSink) throws {
        rows.begin(table: 0)
        rows.text(appID)
        rows.text(state.appUserID)
        rows.text(StateCodec.encode(state.summaries))
        rows.text(foldState ? StateCodec.encode(state) : nil)
        rows.integer(position)
        try rows.end()
    }

    package static func load(_ keys: [StateKey], schema: String, through: LogCheckpoint?, on connection: PostgresConnection) throws
        -> [StateKey: UserGrants]
    {
        try loadFoldStates(keys, schema: schema, through: through, on: connection)
    }

    /// The grants column read back.
    package static func summaries(_ json: String) throws -> [GrantSummary] { try StateCodec.decode([GrantSummary].self, from: json) }
}
