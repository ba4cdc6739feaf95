import Hummingbird
import LedgerDomain
import LedgerStore

/// `/v1/admin/…`: accounts, apps and their keys, for operators (admin token).
struct AdminRoutes {
    let api: LedgerAPI

    struct NewAccount: StrictBody {
        var name: String
        static let members = plain("name")
    }

    struct NewApp: StrictBody {
        var name: String
        var account_id: String
        var bundle_id: String
        var apple_app_id: Int64?
        var transfer_policy: String?
        var allow_xcode: Bool?
        var app_account_token_policy: String?
        static let members = plain("name", "account_id", "bundle_id", "transfer_policy", "allow_xcode", "app_account_token_policy")
            .merging(["apple_app_id": .nullable]) { $1 }
    }

    struct NewKey: StrictBody {
        var kind: String
        var name: String?
        static let members = plain("kind", "name")
    }

    func register(on routes: RouteTable) {
        let api = api
        routes.on(.post, "/v1/admin/accounts") { request, _ in
            try api.auth.requireAdmin(request)
            let body = try await api.body.json(NewAccount.self, from: request)
            let account = try await api.tenancy.createAccount(name: try Check.text(body.name, "name", max: 200))
            return try JSONResponse.make(status: .created, body: AccountBody(account))
        }
        routes.on(.get, "/v1/admin/accounts/{account_id}") { request, context in
            try api.auth.requireAdmin(request)
            let id = try context.path("account_id")
            guard let account = try await api.tenancy.account(id: id) else { throw APIError.notFound("there is no account \(id)") }
            return try JSONResponse.make(status: .ok, body: AccountBody(account, apps: try await api.tenancy.apps(accountID: id)))
        }
        routes.on(.post, "/v1/admin/apps") { request, _ in
            try api.auth.requireAdmin(request)
            let body = try await api.body.json(NewApp.self, from: request)
            let app = try await api.tenancy.createApp(try Self.validate(body))
            return try JSONResponse.make(status: .created, body: AppBody(app))
        }
        routes.on(.get, "/v1/admin/apps/{app_id}") { request, context in
            try api.auth.requireAdmin(request)
            return try JSONResponse.make(status: .ok, body: AppBody(try await Self.app(api, context)))
        }
        routes.on(.post, "/v1/admin/apps/{app_id}/keys") { request, context in
            try api.auth.requireAdmin(request)
            let app = try await Self.app(api, context)
            let body = try await api.body.json(NewKey.self, from: request)
            guard let kind = APIKeyKind(rawValue: body.kind) else {
                throw APIError.badRequest("`kind` must be \"public\" (for the app) or \"secret\" (for your backend)")
            }
            let name = try body.name.map { name throws(APIError) in try Check.text(name, "name", max: 200) }
            let created = try await api.tenancy.createKey(app: app.id, kind: kind, name: name)
            return try JSONResponse.make(status: .created, body: KeyBody(created.record, key: created.key))
        }
        routes.on(.get, "/v1/admin/apps/{app_id}/keys") { request, context in
            try api.auth.requireAdmin(request)
            let app = try await Self.app(api, context)
            return try JSONResponse.make(status: .ok, body: ["keys": try await api.tenancy.keys(app: app.id).map { KeyBody($0) }])
        }
        routes.on(.delete, "/v1/admin/apps/{app_id}/keys/{key_id}") { request, context in
            try api.auth.requireAdmin(request)
            let app = try await Self.app(api, context)
            let keyID = try context.path("key_id")
            guard let key = try await api.tenancy.revokeKey(app: app.id, keyID: keyID) else {
                throw APIError.notFound("app \(app.id) has no key \(keyID)")
            }
            return try JSONResponse.make(status: .ok, body: KeyBody(key))
        }
    }

    static func app(_ api: LedgerAPI, _ context: BasicRequestContext) async throws -> AppRecord {
        let id = try context.path("app_id")
        guard let app = try await api.directory.app(id: id) else { throw APIError.notFound("there is no app \(id)") }
        return app
    }

    static func validate(_ body: NewApp) throws(APIError) -> TenancyStore.NewApp {
        let policy = try body.transfer_policy.map { name throws(APIError) -> TransferPolicy in
            guard let policy = TransferPolicy(apiName: name) else {
                throw .badRequest("`transfer_policy` must be one of \(TransferPolicy.allCases.map(\.apiName).joined(separator: ", "))")
            }
            return policy
        } ?? .transfer
        let tokens = try body.app_account_token_policy.map { name throws(APIError) -> AppAccountTokenConvention in
            guard let convention = AppAccountTokenConvention(rawValue: name) else {
                throw .badRequest("`app_account_token_policy` must be one of \(AppAccountTokenConvention.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return convention
        } ?? .ignore
        if let id = body.apple_app_id, id < 1 { throw .badRequest("`apple_app_id` must be the app's positive App Store id") }
        return TenancyStore.NewApp(
            accountID: try Check.text(body.account_id, "account_id", max: 200), name: try Check.text(body.name, "name", max: 200),
            bundleID: try Check.text(body.bundle_id, "bundle_id", max: 255), appleAppID: body.apple_app_id,
            transferPolicy: policy, allowXcode: body.allow_xcode ?? false, appAccountTokenPolicy: tokens)
    }
}
