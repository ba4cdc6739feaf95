import Hummingbird
import LedgerDomain
import LedgerOperators
import LedgerStore
import LedgerTenancy

/// `/v1/admin/…`: accounts, apps and their keys, for operators (admin token).
struct AdminRoutes {
    let tenancy: TenancyStore
    let cache: TenancyCache
    let body: RequestBodyReader

    struct NewAccount: StrictBody {
        var name: String
        static let members = plain("name")
    }

    struct NewApp: StrictBody {
        var name: String
        var accountID: String
        var bundleID: String
        var appleAppID: Int64?
        var transferPolicy: String?
        var allowXcode: Bool?
        var appAccountTokenPolicy: String?
        var refundPolicy: String?

        enum CodingKeys: String, CodingKey {
            case name
            case accountID = "account_id"
            case bundleID = "bundle_id"
            case appleAppID = "apple_app_id"
            case transferPolicy = "transfer_policy"
            case allowXcode = "allow_xcode"
            case appAccountTokenPolicy = "app_account_token_policy"
            case refundPolicy = "refund_policy"
        }
        static let members = plain(
            "name", "account_id", "bundle_id", "transfer_policy", "allow_xcode", "app_account_token_policy",
            "refund_policy"
        )
        .merging(["apple_app_id": .nullable]) { $1 }
    }

    struct RefundPolicyInput: StrictBody {
        var refundPolicy: String

        enum CodingKeys: String, CodingKey {
            case refundPolicy = "refund_policy"
        }
        static let members = plain("refund_policy")
    }

    struct NewKey: StrictBody {
        var kind: String
        var name: String?
        static let members = plain("kind", "name")
    }

    func register(on routes: RouteTable, auth: Authenticator) {
        let admin = routes.group("/v1/admin", AdminAuthentication(auth: auth, writers: [.admin]))
        let (tenancy, cache, body) = (tenancy, cache, body)
        admin.on(.post, "/v1/admin/accounts") { request, _ in
            let input = try await body.json(NewAccount.self, from: request)
            let account = try await tenancy.createAccount(name: try Check.text(input.name, "name", max: 200))
            return try JSONResponse.make(status: .created, body: AccountBody(account))
        }
        admin.on(.get, "/v1/admin/accounts/{account_id}") { request, context in
            let id = try context.path("account_id")
            guard let account = try await tenancy.account(id: id) else { throw APIError.notFound("there is no account \(id)") }
            return try JSONResponse.make(status: .ok, body: AccountBody(account, apps: try await tenancy.apps(accountID: id)))
        }
        admin.on(.post, "/v1/admin/apps") { request, _ in
            let input = try await body.json(NewApp.self, from: request)
            let app = try await tenancy.createApp(try Self.validate(input))
            return try JSONResponse.make(status: .created, body: AppBody(app))
        }
        admin.on(.get, "/v1/admin/apps/{app_id}") { request, context in
            return try JSONResponse.make(status: .ok, body: AppBody(try await Self.app(cache, context)))
        }
        admin.on(.put, "/v1/admin/apps/{app_id}/refund-policy") { request, context in
            let app = try await Self.app(cache, context)
            let policy = try Self.refundPolicy(try await body.json(RefundPolicyInput.self, from: request).refundPolicy)
            guard let changed = try await tenancy.setRefundPolicy(app: app.id, policy) else { throw APIError.notFound("there is no app \(app.id)") }
            cache.invalidate(.apps)
            return try JSONResponse.make(status: .ok, body: AppBody(changed))
        }
        admin.on(.post, "/v1/admin/apps/{app_id}/keys") { request, context in
            let app = try await Self.app(cache, context)
            let input = try await body.json(NewKey.self, from: request)
            guard let kind = APIKeyKind(rawValue: input.kind) else {
                throw APIError.badRequest("`kind` must be \"public\" (for the app) or \"secret\" (for your backend)")
            }
            let name = try input.name.map { name throws(APIError) in try Check.text(name, "name", max: 200) }
            let created = try await tenancy.createKey(app: app.id, kind: kind, name: name)
            return try JSONResponse.make(status: .created, body: KeyBody(created.record, key: created.key))
        }
        admin.on(.get, "/v1/admin/apps/{app_id}/keys") { request, context in
            let app = try await Self.app(cache, context)
            return try JSONResponse.make(status: .ok, body: ["keys": try await tenancy.keys(app: app.id).map { KeyBody($0) }])
        }
        admin.on(.delete, "/v1/admin/apps/{app_id}/keys/{key_id}") { request, context in
            let app = try await Self.app(cache, context)
            let keyID = try context.path("key_id")
            guard let key = try await tenancy.revokeKey(app: app.id, keyID: keyID) else {
                throw APIError.notFound("app \(app.id) has no key \(keyID)")
            }
            cache.invalidate(.apiKeys)
            return try JSONResponse.make(status: .ok, body: KeyBody(key))
        }
    }

    static func app(_ cache: TenancyCache, _ context: LedgerRequestContext) async throws -> AppRecord {
        let id = try context.path("app_id")
        guard let app = try await cache.app(id: id) else { throw APIError.notFound("there is no app \(id)") }
        return app
    }

    static func validate(_ body: NewApp) throws(APIError) -> TenancyStore.NewApp {
        let policy =
            try body.transferPolicy.map { name throws(APIError) -> TransferPolicy in
                guard let policy = TransferPolicy(apiName: name) else {
                    throw .badRequest("`transfer_policy` must be one of \(TransferPolicy.allCases.map(\.apiName).joined(separator: ", "))")
                }
                return policy
            } ?? .transfer
        let tokens =
            try body.appAccountTokenPolicy.map { name throws(APIError) -> AppAccountTokenConvention in
                guard let convention = AppAccountTokenConvention(rawValue: name) else {
                    let names = AppAccountTokenConvention.allCases.map(\.rawValue).joined(separator: ", ")
                    throw .badRequest("`app_account_token_policy` must be one of \(names)")
                }
                return convention
            } ?? .ignore
        let refunds = try body.refundPolicy.map { name throws(APIError) in try Self.refundPolicy(name) } ?? .byConsumption
        if let id = body.appleAppID, id < 1 { throw .badRequest("`apple_app_id` must be the app's positive App Store id") }
        return TenancyStore.NewApp(
            accountID: try Check.text(body.accountID, "account_id", max: 200), name: try Check.text(body.name, "name", max: 200),
            bundleID: try Check.text(body.bundleID, "bundle_id", max: 255), appleAppID: body.appleAppID,
            transferPolicy: policy, allowXcode: body.allowXcode ?? false, appAccountTokenPolicy: tokens, refundPolicy: refunds)
    }

    static func refundPolicy(_ name: String) throws(APIError) -> RefundPolicy {
        guard let policy = RefundPolicy(rawValue: name) else {
            throw .badRequest("`refund_policy` must be one of \(RefundPolicy.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return policy
    }
}
