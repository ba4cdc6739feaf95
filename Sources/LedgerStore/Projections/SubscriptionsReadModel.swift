import LedgerDomain
import PostgresClient

/// `ledger.subscriptions`: the `subscription_status` projection, one row per auto-renewable subscription. Its typed
/// columns are the subscription's `SubscriptionSummary`, what every per-user view reads; `fold_state` is what the
/// next event folds from.
package enum SubscriptionsReadModel: ReadModel {
    package typealias Reducer = SubscriptionStatusReducer

    package static let tables = [
        ReadModelTable(
            name: "subscriptions",
            columns: [
                .init("app_id", "text"), .init("original_transaction_id", "text"), .init("owner_app_user_id", "text"),
                .init("product_id", "text"), .init("subscription_group_id", "text"), .init("status", "text"),
                .init("expires_at", "timestamptz"), .init("grace_expires_at", "timestamptz"), .init("auto_renew", "boolean"),
                .init("next_product_id", "text"), .init("offer_type", "text"), .init("offer_id", "text"),
                .init("offer_payment_mode", "text"), .init("offer_period", "text"),
                .init("environment", "text"), .init("price_increase", "text"), .init("latest_transaction_id", "text"),
                .init("app_transaction_id", "text"), .init("billing_plan_type", "text"), .init("commitment", "jsonb"),
                .init("products_ever_purchased", "text[]"),
                .init("activated_at", "timestamptz"), .init("family_shared", "boolean"), .init("fold_state", "jsonb"),
                .init("last_position", "bigint", keepsGreatest: true)
            ], key: ["app_id", "original_transaction_id"])
    ]

    package static func folder() -> any ModelFolding { Folder() }

    package struct Folder: ConcreteFolder { package var folder = ModelFolder<SubscriptionsReadModel>() }

    package static func write(
        appID: String, state: SubscriptionStatus, position: Int64, foldState: Bool, into rows: inout some RowSink
    ) throws {
        let s = state.summary
        rows.begin(table: 0)
        rows.text(appID)
        rows.text(s.originalTransactionID)
        rows.text(s.ownerUserID)
        rows.text(s.productID)
        rows.text(s.subscriptionGroupID)
        rows.text(s.state?.storedValue)
        rows.instant(s.expiresAt)
        rows.instant(s.graceExpiresAt)
        rows.bool(s.autoRenew)
        rows.text(s.nextProductID)
        rows.text(s.offer?.type.rawValue)
        rows.text(s.offer?.identifier)
        rows.text(s.offer?.paymentMode)
        rows.text(s.offer?.period)
        rows.text(s.environment?.rawValue)
        rows.text(s.priceIncrease?.rawValue)
        rows.text(s.latestTransactionID)
        rows.text(s.appTransactionID)
        rows.text(s.billingPlanType)
        rows.text(s.commitment.map(StateCodec.encode))
        rows.textArray(s.productsEverPurchased)
        rows.instant(s.activatedAt)
        rows.bool(s.familyShared)
        rows.text(foldState ? StateCodec.encode(state) : nil)
        rows.integer(position)
        try rows.end()
    }

    package static func load(_ keys: [StateKey], schema: String, through: LogCheckpoint?, on connection: PostgresConnection) throws
        -> [StateKey: SubscriptionStatus]
    {
        try loadFoldStates(keys, schema: schema, through: through, on: connection)
    }

    /// The columns `summary(_:)` reads, in its order.
    package static let summaryColumns = [
        "original_transaction_id", "owner_app_user_id", "product_id", "subscription_group_id", "status", "expires_at",
        "grace_expires_at", "auto_renew", "next_product_id", "price_increase", "offer_type", "offer_id",
        "offer_payment_mode", "offer_period", "environment", "family_shared", "latest_transaction_id",
        "app_transaction_id", "billing_plan_type", "commitment", "products_ever_purchased", "activated_at"
    ]

    /// A summary from `summaryColumns`, read from the cursor's column on.
    package static func summary(_ cells: inout PostgresRowCursor) throws -> SubscriptionSummary {
        var s = SubscriptionSummary(originalTransactionID: try cells.next())
        s.ownerUserID = try cells.next()
        s.productID = try cells.next()
        s.subscriptionGroupID = try cells.next()
        s.state = try Cell.parse(cells.next(), "status", SubscriptionState.init(storedValue:))
        s.expiresAt = try cells.next()
        s.graceExpiresAt = try cells.next()
        s.autoRenew = try cells.next()
        s.nextProductID = try cells.next()
        s.priceIncrease = try Cell.parse(cells.next(), "price_increase", PriceIncreaseConsent.init(rawValue:))
        let offerType = try Cell.parse(cells.next(), "offer_type", OfferType.init(rawValue:))
        let (offerID, paymentMode, period): (String?, String?, String?) = (try cells.next(), try cells.next(), try cells.next())
        s.offer = offerType.map { Offer(type: $0, identifier: offerID, paymentMode: paymentMode, period: period) }
        s.environment = try (cells.next() as String?).map(StoreEnvironment.init(rawValue:))
        s.familyShared = try cells.next()
        s.latestTransactionID = try cells.next()
        s.appTransactionID = try cells.next()
        s.billingPlanType = try cells.next()
        s.commitment = try (cells.next() as String?).map { try StateCodec.decode(Commitment.self, from: $0) }
        s.productsEverPurchased = try cells.next(TextArray.self).elements
        s.activatedAt = try cells.next()
        return s
    }
}
