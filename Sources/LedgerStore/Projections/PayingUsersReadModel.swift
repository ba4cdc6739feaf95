import LedgerDomain
import PostgresClient
import UTCTime

/// `ledger.paying_purchases` and `ledger.paying_users`: the `paying_users` projection. A purchase's owner claim in the
/// first, one row per month it was paid in (with who counts) in the second, all typed: invoices count these rows.
package enum PayingUsersReadModel: ReadModel {
    package typealias Reducer = PayingUsersReducer

    package static let tables = [
        ReadModelTable(
            name: "paying_purchases",
            columns: [
                .init("app_id", "text"), .init("original_transaction_id", "text"), .init("owner_app_user_id", "text"),
                .init("owner_strong", "boolean"), .init("owner_claimed_at", "timestamptz"), .init("owner_claim_rank", "integer"),
                .init("owner_claim_tie", "text"), .init("last_position", "bigint", keepsGreatest: true)
            ], key: ["app_id", "original_transaction_id"]),
        ReadModelTable(
            name: "paying_users",
            columns: [
                .init("app_id", "text"), .init("month", "text"), .init("original_transaction_id", "text"), .init("app_user_id", "text"),
                .init("carried_app_user_id", "text"), .init("transaction_id", "text")
            ], key: ["app_id", "original_transaction_id", "month"])
    ]

    package static func folder() -> any ModelFolding { Folder() }

    package struct Folder: ConcreteFolder { package var folder = ModelFolder<PayingUsersReadModel>() }

    package static func write(
        appID: String, state p: PayingPurchase, position: Int64, foldState: Bool, into rows: inout some RowSink
    ) throws {
        let owner = p.owner
        rows.begin(table: 0)
        rows.text(appID)
        rows.text(p.originalTransactionID)
        rows.text(owner?.appUserID)
        rows.bool(owner?.strong)
        rows.instant(owner?.stamp.at)
        rows.integer(owner?.stamp.rank)
        rows.text(owner?.stamp.tie)
        rows.integer(position)
        try rows.end()
        for month in p.months.keys.sorted() {
            guard let paid = p.months[month], let user = p.payingUser(in: month) else { continue }
            rows.begin(table: 1)
            rows.text(appID)
            rows.text(month)
            rows.text(p.originalTransactionID)
            rows.text(user)
            rows.text(paid.appUserID)
            rows.text(paid.transactionID)
            try rows.end()
        }
    }

    /// Every column of these tables is the state: nothing to fold again.
    package static func load(_ keys: [StateKey], schema: String, through: LogCheckpoint?, on connection: PostgresConnection) throws
        -> [StateKey: PayingPurchase]
    {
        guard !keys.isEmpty else { return [:] }
        var states: [StateKey: PayingPurchase] = [:]
        for row in try rows(
            of: keys, table: tables[0],
            columns: """
                t.app_id, t.original_transaction_id, t.owner_app_user_id, t.owner_strong, t.owner_claimed_at, t.owner_claim_rank,
                t.owner_claim_tie
                """, schema: schema, on: connection)
        {
            let key = StateKey(appID: try row.decode(String.self, at: 0), key: try row.decode(String.self, at: 1))
            var owner: OwnerClaim?
            if let user = try row.decode(String?.self, at: 2), let strong = try row.decode(Bool?.self, at: 3),
                let at = try row.decode(Instant?.self, at: 4), let rank = try row.decode(Int?.self, at: 5),
                let tie = try row.decode(String?.self, at: 6)
            {
                owner = OwnerClaim(appUserID: user, strong: strong, stamp: Stamp(at: at, rank: rank, tie: tie))
            }
            states[key] = PayingPurchase(originalTransactionID: key.key, owner: owner)
        }
        for row in try rows(
            of: keys, table: tables[1],
            columns: """
                t.app_id, t.original_transaction_id, t.month, t.carried_app_user_id, t.transaction_id
                """, schema: schema, on: connection)
        {
            let key = StateKey(appID: try row.decode(String.self, at: 0), key: try row.decode(String.self, at: 1))
            states[key, default: PayingPurchase(originalTransactionID: key.key)].months[try row.decode(String.self, at: 2)] =
                PayingPurchase.PaidMonth(appUserID: try row.decode(String?.self, at: 3), transactionID: try row.decode(String.self, at: 4))
        }
        return states
    }
}
