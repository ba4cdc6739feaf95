import LedgerDomain
import PostgresClient

/// `ledger.purchases`: the `purchases` projection, one row per purchase that is not an App Store subscription.
package enum PurchasesReadModel: ReadModel {
    package typealias Reducer = PurchaseRecordReducer

    package static let tables = [
        ReadModelTable(name: "purchases", columns: [
            .init("app_id", "text"), .init("original_transaction_id", "text"), .init("owner_app_user_id", "text"),
            .init("product_id", "text"), .init("product_type", "text"), .init("transaction_id", "text"),
            .init("purchased_at", "timestamptz"), .init("expires_at", "timestamptz"), .init("environment", "text"),
            .init("price_milliunits", "bigint"), .init("price_currency", "text"), .init("developer_payload", "text"),
            .init("quantity", "integer"), .init("source", "text"), .init("consumed_at", "timestamptz"),
            .init("standing", "text"), .init("fold_state", "jsonb"), .init("last_position", "bigint", keepsGreatest: true),
        ], key: ["app_id", "original_transaction_id"]),
    ]

    package static func folder() -> any ModelFolding { Folder() }

    package struct Folder: ConcreteFolder { package var folder = ModelFolder<PurchasesReadModel>() }

    package static func rows(appID: String, state p: PurchaseRecord, position: Int64, foldState: Bool) -> [[[String?]]] {
        let d = p.details
        let source: String? = d.map {
            switch $0.source {
            case .appStore: "appStore"
            case .external(let provider): "external:" + provider
            }
        }
        return [[[
            appID, p.originalTransactionID, p.ownerUserID, d?.productID, d?.productType.rawValue, d?.transactionID,
            Cell.instant(d?.purchasedAt), Cell.instant(d?.expiresAt), d?.environment.rawValue, Cell.integer(d?.price?.milliunits),
            d?.price?.currency, d?.developerPayload, Cell.integer(d?.quantity), source, Cell.instant(p.consumedAt),
            p.standing?.value.rawValue, foldState ? StateCodec.encode(p) : nil, Cell.integer(position),
        ]]]
    }

    package static func load(_ keys: [StateKey], schema: String, through: LogCheckpoint?, on connection: PostgresConnection) throws
        -> [StateKey: PurchaseRecord] {
        try loadFoldStates(keys, schema: schema, through: through, on: connection)
    }
}
