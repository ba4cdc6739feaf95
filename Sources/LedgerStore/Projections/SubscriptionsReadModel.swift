import LedgerDomain
import PostgresClient

/// `ledger.subscriptions`: the `subscription_status` projection, one row per auto-renewable subscription.
package enum SubscriptionsReadModel: ReadModel {
    package typealias Reducer = SubscriptionStatusReducer

    package static let tables = [
        ReadModelTable(name: "subscriptions", columns: [
            .init("app_id", "text"), .init("original_transaction_id", "text"), .init("owner_app_user_id", "text"),
            .init("product_id", "text"), .init("subscription_group_id", "text"), .init("status", "text"),
            .init("expires_at", "timestamptz"), .init("grace_expires_at", "timestamptz"), .init("auto_renew", "boolean"),
            .init("next_product_id", "text"), .init("offer_type", "text"), .init("offer_id", "text"),
            .init("environment", "text"), .init("price_increase", "text"), .init("latest_transaction_id", "text"),
            .init("activated_at", "timestamptz"), .init("family_shared", "boolean"), .init("fold_state", "jsonb"),
            .init("last_position", "bigint", keepsGreatest: true),
        ], key: ["app_id", "original_transaction_id"]),
    ]

    package static func folder() -> any ModelFolding { Folder() }

    package struct Folder: ConcreteFolder { package var folder = ModelFolder<SubscriptionsReadModel>() }

    package static func rows(appID: String, state s: SubscriptionStatus, position: Int64, foldState: Bool) -> [[[String?]]] {
        [[[
            appID, s.originalTransactionID, s.ownerUserID, s.productID, s.subscriptionGroupID, s.state?.storedValue,
            Cell.instant(s.expiresAt), Cell.instant(s.graceExpiresAt), Cell.bool(s.autoRenew?.value), s.nextProductID,
            s.offerInEffect?.type.rawValue, s.offerInEffect?.identifier, s.environment?.rawValue,
            s.priceIncrease?.value.rawValue, s.latestTransactionID, Cell.instant(s.activatedAt), Cell.bool(s.familyShared),
            foldState ? StateCodec.encode(s) : nil, Cell.integer(position),
        ]]]
    }

    package static func load(_ keys: [StateKey], schema: String, through: LogCheckpoint?, on connection: PostgresConnection) throws
        -> [StateKey: SubscriptionStatus] {
        try loadFoldStates(keys, schema: schema, through: through, on: connection)
    }
}
