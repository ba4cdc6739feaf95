import LedgerDomain
import LedgerStore

// The JSON shapes of the v1 API. Swift names are camelCase; each type's `CodingKeys` spells the wire names
// (snake_case), so the wire is written in one place per type. `openapi.json` describes the same shapes.

/// An optional member that is always present in the JSON, as `null` when absent (synthesized `Encodable` would
/// leave the key out), so clients and the OpenAPI document see every member every time.
struct Nullable<Value: Encodable & Sendable>: Encodable, Sendable {
    var value: Value?
    init(_ value: Value?) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}


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
