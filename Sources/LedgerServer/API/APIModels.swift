import LedgerDomain
import LedgerStore

// The JSON shapes of the v1 API. Property names are the wire names (snake_case) on purpose: these types exist only
// to be encoded, and spelling the wire name once beats a CodingKeys table per type. `openapi.json` describes the
// same shapes.

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
    var created_at: String
    var apps: [AppBody]?

    init(_ account: Account, apps: [AppRecord]? = nil) {
        id = account.id
        name = account.name
        created_at = account.createdAt.rfc3339
        self.apps = apps?.map(AppBody.init)
    }
}

struct AppBody: Encodable {
    var id: String
    var account_id: String
    var name: String
    var bundle_id: String
    var apple_app_id: Nullable<Int64>
    var transfer_policy: String
    var allow_xcode: Bool
    var app_account_token_policy: String
    var notification_url: String
    var created_at: String

    init(_ app: AppRecord) {
        id = app.id
        account_id = app.accountID
        name = app.name
        bundle_id = app.bundleID
        apple_app_id = Nullable(app.appleAppID)
        transfer_policy = app.transferPolicy.apiName
        allow_xcode = app.allowXcode
        app_account_token_policy = app.appAccountTokenPolicy.rawValue
        notification_url = "/v1/apps/\(app.id)/notifications"
        created_at = app.createdAt.rfc3339
    }
}

struct KeyBody: Encodable {
    var id: String
    var app_id: String
    var kind: String
    var name: Nullable<String>
    /// Only in the answer that creates the key.
    var key: String?
    var created_at: String
    var revoked_at: Nullable<String>

    init(_ record: APIKeyRecord, key: String? = nil) {
        id = record.id
        app_id = record.appID
        kind = record.kind.rawValue
        name = Nullable(record.name)
        self.key = key
        created_at = record.createdAt.rfc3339
        revoked_at = Nullable(record.revokedAt?.rfc3339)
    }
}

struct ProductBody: Encodable {
    var id: String
    var type: String
    var subscription_group: Nullable<String>
    var entitlements: [String]
    var updated_at: String

    init(_ product: ProductRecord) {
        id = product.productID
        type = product.type.apiName
        subscription_group = Nullable(product.subscriptionGroup)
        entitlements = product.entitlements
        updated_at = product.updatedAt.rfc3339
    }
}
