import ExactJSON
import Foundation
import LedgerDomain
import LedgerStore
import LedgerTenancy
import LedgerWire
import UTCTime

/// The body of a webhook, in the Standard Webhooks shape (`type`, `timestamp`, `data`): what happened (the ledger
/// event's type, its position, the purchase or support grant it is about), its state right after it, and the user's
/// entitlements and products status then, with the user's sequence and the one before it so that a receiver can
/// order deliveries and notice a gap. Rendered once, when the delivery is made; every retry sends the same bytes.
package enum WebhookPayload {
    package static let render: WebhookFanOut.Renderer = { change, envelope in
        let at = change.event.recordedAt
        var user: UserState?
        if let owner = change.appUserID {
            // The summaries name the owner by pseudonym; the payload names them as the app does (`owner`).
            let snapshot = UserSnapshot(appUserID: change.owned.owner ?? owner, owned: change.owned, catalog: change.catalog.catalog, at: at)
            user = UserState(
                entitlements: EntitlementBody.list(snapshot.entitlements),
                productsStatus: ProductStatusBody.list(snapshot.productsStatus, catalog: change.catalog))
        }
        let message = Message(
            type: change.type, timestamp: at.rfc3339,
            data: Message.Body(
                deliveryID: envelope.deliveryID, appID: change.event.appID, appUserID: Nullable(change.appUserID),
                productID: Nullable(change.subscription?.productID ?? change.purchase?.details?.productID),
                originalTransactionID: Nullable(change.originalTransactionID), environment: Nullable(change.environment),
                position: change.event.position, sequence: envelope.sequence, previousSequence: Nullable(envelope.previousSequence),
                occurredAt: change.event.occurredAt.rfc3339, recordedAt: at.rfc3339,
                subscription: Nullable(change.subscription.map { SubscriptionBody($0, at: at) }),
                purchase: Nullable(change.purchase.flatMap { PurchaseBody($0, at: at) }),
                grant: Nullable(change.grant.map { GrantBody($0, at: at) }),
                user: Nullable(user)))
        return String(decoding: try SortedKeysEncoder().encode(message), as: UTF8.self)
    }

    struct Message: Encodable {
        var type: String
        var timestamp: String
        var data: Body

        struct Body: Encodable {
            var deliveryID: String
            var appID: String
            var appUserID: Nullable<String>
            var productID: Nullable<String>
            var originalTransactionID: Nullable<String>
            var environment: Nullable<String>
            var position: Int64
            var sequence: Int64
            var previousSequence: Nullable<Int64>
            var occurredAt: String
            var recordedAt: String
            var subscription: Nullable<SubscriptionBody>
            var purchase: Nullable<PurchaseBody>
            var grant: Nullable<GrantBody>
            var user: Nullable<UserState>

            enum CodingKeys: String, CodingKey {
                case deliveryID = "delivery_id"
                case appID = "app_id"
                case appUserID = "app_user_id"
                case productID = "product_id"
                case originalTransactionID = "original_transaction_id"
                case environment
                case position
                case sequence
                case previousSequence = "previous_sequence"
                case occurredAt = "occurred_at"
                case recordedAt = "recorded_at"
                case subscription
                case purchase
                case grant
                case user
            }
        }
    }

    /// The user's state after the event: what the live stream sends too.
    struct UserState: Encodable, Sendable {
        var entitlements: [EntitlementBody]
        var productsStatus: [ProductStatusBody]

        enum CodingKeys: String, CodingKey {
            case entitlements
            case productsStatus = "products_status"
        }
    }
}
