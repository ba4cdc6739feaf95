import LedgerDomain
import PostgresClient
import UTCTime

/// `ledger.purchases`: the `purchases` projection, one row per purchase that is not an App Store subscription.
package enum PurchasesReadModel: ReadModel {
    package typealias Reducer = PurchaseRecordReducer

    package static let tables = [
        ReadModelTable(
            name: "purchases",
            columns: [
                .init("app_id", "text"), .init("original_transaction_id", "text"), .init("owner_app_user_id", "text"),
                .init("product_id", "text"), .init("product_type", "text"), .init("transaction_id", "text"),
                .init("purchased_at", "timestamptz"), .init("expires_at", "timestamptz"), .init("environment", "text"),
                .init("price_milliunits", "bigint"), .init("price_currency", "text"), .init("developer_payload", "text"),
                .init("family_shared", "boolean"), .init("quantity", "integer"), .init("source", "text"), .init("consumed_at", "timestamptz"),
                .init("standing", "text"), .init("fold_state", "jsonb"), .init("last_position", "bigint", keepsGreatest: true)
            ], key: ["app_id", "original_transaction_id"])
    ]

    package static func folder() -> any ModelFolding { Folder() }

    package struct Folder: ConcreteFolder { package var folder = ModelFolder<PurchasesReadModel>() }

    package static func write(
        appID: String, state p: PurchaseRecord, position: Int64, foldState: Bool, into rows: inout some RowSink
    ) throws {
        let d = p.details
        rows.begin(table: 0)
        rows.text(appID)
        rows.text(p.originalTransactionID)
        rows.text(p.ownerUserID)
        rows.text(d?.productID)
        rows.text(d?.productType.rawValue)
        rows.text(d?.transactionID)
        rows.instant(d?.purchasedAt)
        rows.instant(d?.expiresAt)
        rows.text(d?.environment.rawValue)
        rows.integer(d?.price?.milliunits)
        rows.text(d?.price?.currency)
        rows.text(d?.developerPayload)
        rows.bool(d?.familyShared ?? false)
        rows.integer(d?.quantity)
        rows.text(d?.source.storedValue)
        rows.instant(p.consumedAt)
        rows.text(p.standing?.value.rawValue)
        rows.text(foldState ? StateCodec.encode(p) : nil)
        rows.integer(position)
        try rows.end()
    }

    package static func load(_ keys: [StateKey], schema: String, through: LogCheckpoint?, on connection: PostgresConnection) throws
        -> [StateKey: PurchaseRecord]
    {
        try loadFoldStates(keys, schema: schema, through: through, on: connection)
    }

    /// The columns `summary(_:)` reads, in its order.
    package static let summaryColumns = [
        "original_transaction_id", "owner_app_user_id", "product_id", "product_type", "transaction_id", "purchased_at",
        "expires_at", "environment", "price_milliunits", "price_currency", "developer_payload", "family_shared",
        "quantity", "source", "consumed_at", "standing"
    ]

    /// A summary from `summaryColumns`, read from the cursor's column on.
    package static func summary(_ cells: inout PostgresRowCursor) throws -> PurchaseSummary {
        var p = PurchaseSummary(originalTransactionID: try cells.next())
        p.ownerUserID = try cells.next()
        let productID: String? = try cells.next()
        let productType = try Cell.parse(cells.next(), "product_type", ProductType.init(rawValue:))
        let transactionID: String? = try cells.next()
        let purchasedAt: Instant? = try cells.next()
        let expiresAt: Instant? = try cells.next()
        let environment: String? = try cells.next()
        let (milliunits, currency): (Int64?, String?) = (try cells.next(), try cells.next())
        let developerPayload: String? = try cells.next()
        let familyShared: Bool = try cells.next()
        let quantity: Int? = try cells.next()
        let source = try Cell.parse(cells.next(), "source", PurchaseSource.init(storedValue:))
        p.consumedAt = try cells.next()
        p.standing = try Cell.parse(cells.next(), "standing", TransactionStanding.init(rawValue:))
        if let productID, let productType, let transactionID, let purchasedAt, let environment, let quantity, let source {
            p.details = PurchaseRecord.Details(
                productID: productID, productType: productType, transactionID: transactionID, purchasedAt: purchasedAt,
                expiresAt: expiresAt, environment: StoreEnvironment(rawValue: environment),
                price: milliunits.flatMap { amount in currency.map { Money(milliunits: amount, currency: $0) } }, developerPayload: developerPayload,
                familyShared: familyShared, quantity: quantity, source: source)
        }
        return p
    }
}

extension PurchaseSource {
    /// As the `source` column keeps it: `appStore` or `external:<provider>`.
    var storedValue: String {
        switch self {
        case .appStore: "appStore"
        case .external(let provider): "external:" + provider
        }
    }

    init?(storedValue: String) {
        if storedValue == "appStore" {
            self = .appStore
        } else if storedValue.hasPrefix("external:") {
            self = .external(provider: String(storedValue.dropFirst("external:".count)))
        } else {
            return nil
        }
    }
}
