import LedgerOperators
import LedgerTenancy

/// Who acts on which app user, for the writes that exist twice: under `/v1/users/{user_id}` with the app's secret key
/// (the developer's backend) and under `/v1/admin/apps/{app_id}/users/{user_id}` for operators (grants, erasure).
struct UserActor {
    var app: AppRecord
    var user: String
    /// What the log and the records name as the actor: an operator id (`op_…`), `break-glass:…`, or `key:<key id>`.
    var actor: String

    /// The backend's: the secret key's app and the path's user.
    static func byBackend(_ context: LedgerRequestContext) throws -> UserActor {
        let (caller, user) = try context.actor()
        return UserActor(app: caller.app, user: user, actor: "key:" + caller.key.id)
    }

    /// An operator's: the path's app and user, and the operator `AdminAuthentication` let in.
    static func byOperator(_ context: LedgerRequestContext, cache: TenancyCache) async throws -> UserActor {
        let appID = try context.path("app_id")
        guard let app = try await cache.app(id: appID) else { throw TenancyError.unknownApp(appID) }
        let user = try Check.text(try context.path("user_id"), "user_id", max: 256)
        guard let caller = context.adminCaller else { throw APIError.forbidden("an operator token is needed") }
        return UserActor(app: app, user: user, actor: AdminAuthentication.actor(caller, context: context).eventActor)
    }
}
