import ExactJSON
import LedgerDomain
import LedgerStore
import LedgerTenancy
import LedgerWire
import UTCTime

// The JSON shapes of the v1 API. Swift names are camelCase; each type's `CodingKeys` spells the wire names
// (snake_case), so the wire is written in one place per type. `openapi.json` describes the same shapes.

struct AccountBody: Encodable {
    var id: String
    var name: String
    var createdAt: String
    var apps: [AppBody]?

    enum CodingKeys: String, CodingKey {
        case id
        case name
        case createdAt = "created_at"
        case apps
    }

    init(_ account: Account, apps: [AppRecord]? = nil) {
        id = account.id
        name = account.name
        createdAt = account.createdAt.rfc3339
        self.apps = apps?.map(AppBody.init)
    }
}

struct AppBody: Encodable {
    var id: String
    var accountID: String
    var name: String
    var bundleID: String
    var appleAppID: Nullable<Int64>
    var transferPolicy: String
    var allowXcode: Bool
    var appAccountTokenPolicy: String
    var refundPolicy: String
    var notificationURL: String
    var createdAt: String

    enum CodingKeys: String, CodingKey {
        case id
        case accountID = "account_id"
        case name
        case bundleID = "bundle_id"
        case appleAppID = "apple_app_id"
        case transferPolicy = "transfer_policy"
        case allowXcode = "allow_xcode"
        case appAccountTokenPolicy = "app_account_token_policy"
        case refundPolicy = "refund_policy"
        case notificationURL = "notification_url"
        case createdAt = "created_at"
    }

    init(_ app: AppRecord) {
        id = app.id
        accountID = app.accountID
        name = app.name
        bundleID = app.bundleID
        appleAppID = Nullable(app.appleAppID)
        transferPolicy = app.transferPolicy.apiName
        allowXcode = app.allowXcode
        appAccountTokenPolicy = app.appAccountTokenPolicy.rawValue
        refundPolicy = app.refundPolicy.rawValue
        notificationURL = "/v1/apps/\(app.id)/notifications"
        createdAt = app.createdAt.rfc3339
    }
}

struct KeyBody: Encodable {
    var id: String
    var appID: String
    var kind: String
    var name: Nullable<String>
    /// Only in the answer that creates the key.
    var key: String?
    var createdAt: String
    var revokedAt: Nullable<String>

    enum CodingKeys: String, CodingKey {
        case id
        case appID = "app_id"
        case kind
        case name
        case key
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
    }

    init(_ record: APIKeyRecord, key: String? = nil) {
        id = record.id
        appID = record.appID
        kind = record.kind.rawValue
        name = Nullable(record.name)
        self.key = key
        createdAt = record.createdAt.rfc3339
        revokedAt = Nullable(record.revokedAt?.rfc3339)
    }
}

struct ProductBody: Encodable {
    var id: String
    var type: String
    var subscriptionGroup: Nullable<String>
    var entitlements: [String]
    var updatedAt: String

    enum CodingKeys: String, CodingKey {
        case id
        case type
        case subscriptionGroup = "subscription_group"
        case entitlements
        case updatedAt = "updated_at"
    }

    init(_ product: ProductRecord) {
        id = product.productID
        type = product.type.apiName
        subscriptionGroup = Nullable(product.subscriptionGroup)
        entitlements = product.entitlements
        updatedAt = product.updatedAt.rfc3339
    }
}

/// `GET /v1/users/{user_id}`.
struct UserBody: Encodable {
    var appUserID: String
    /// False when the ledger holds no purchase or grant of this user (`OwnedSummaries.isKnown`).
    var known: Bool
    var subscriptions: [SubscriptionBody]
    var entitlements: [EntitlementBody]
    var oneTimePurchases: [PurchaseBody]
    var grants: [GrantBody]
    var unconsumed: [UnconsumedBody]
    var productsStatus: [ProductStatusBody]
    var introOfferEligibility: [IntroOfferEligibilityBody]

    enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case known
        case subscriptions
        case entitlements
        case oneTimePurchases = "one_time_purchases"
        case grants
        case unconsumed
        case productsStatus = "products_status"
        case introOfferEligibility = "intro_offer_eligibility"
    }
}

extension UserBody: JSONWritable {
    func write(to json: inout JSONOutput) {
        json.object { json in
            json.member(CodingKeys.appUserID, appUserID)
            json.member(CodingKeys.entitlements, entitlements)
            json.member(CodingKeys.grants, grants)
            json.member(CodingKeys.introOfferEligibility, introOfferEligibility)
            json.member(CodingKeys.known, known)
            json.member(CodingKeys.oneTimePurchases, oneTimePurchases)
            json.member(CodingKeys.productsStatus, productsStatus)
            json.member(CodingKeys.subscriptions, subscriptions)
            json.member(CodingKeys.unconsumed, unconsumed)
        }
    }
}
