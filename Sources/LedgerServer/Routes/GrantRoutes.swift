import HTTPTypes
import Hummingbird
import LedgerDomain
import LedgerOperators
import LedgerRecording
import LedgerStore
import LedgerTenancy
import LedgerWire
import UTCTime

/// Support grants (promotional entitlements): `POST /v1/users/{user_id}/grants` and
/// `DELETE /v1/users/{user_id}/grants/{grant_id}` with the app's secret key (the developer's backend), and the same
/// under `/v1/admin/apps/{app_id}/users/{user_id}/grants` for operators with the support role. Each is an event in
/// the user's own stream naming who acted (the operator's id, or the secret key's); the grant then shows in every
/// per-user read (status, entitlements, live streams, webhooks, timeline, as-of) until it expires or is revoked.
/// A POST with an `Idempotency-Key` may be retried: the same key and values answer the grant the first request gave
/// (201 again, its `grant_id` and `position`), the same key with other values is a 422 `idempotency_key_reused`.
struct GrantRoutes {
    let recorder: LedgerRecorder
    let cache: TenancyCache
    let body: RequestBodyReader
    let readYourWrites: ReadYourWrites
    let clock: LedgerClock

    struct GrantInput: StrictBody {
        var entitlementID: String
        var expiresAt: String
        var reason: String

        enum CodingKeys: String, CodingKey {
            case entitlementID = "entitlement_id"
            case expiresAt = "expires_at"
            case reason
        }
        static let members = plain("entitlement_id", "expires_at", "reason")
    }

    struct GrantAnswer: Encodable {
        var appUserID: String
        var grant: GrantBody
        var reason: String
        var by: String
        var position: Int64

        enum CodingKeys: String, CodingKey {
            case appUserID = "app_user_id"
            case grant, reason, by, position
        }
    }

    /// The request's `Idempotency-Key` (nil without one), as `GrantRules.isIdempotencyKey` allows.
    static func idempotencyKey(_ request: Request) throws(APIError) -> String? {
        guard let key = request.headers[idempotencyKeyField] else { return nil }
        guard GrantRules.isIdempotencyKey(key) else {
            throw .badRequest("`Idempotency-Key` must be 1 to 255 visible ASCII characters, no spaces; a UUID serves well")
        }
        return key
    }

    static let idempotencyKeyField = HTTPField.Name("Idempotency-Key")!

    func register(on routes: RouteTable, auth: Authenticator) {
        let backend = routes.group("/v1/users/{user_id}/grants", UserAuthentication(auth: auth, timeout: routes.timeout, secretOnly: true))
        register(backend, path: "/v1/users/{user_id}/grants") { try UserActor.byBackend($0) }
        let admin = routes.group("/v1/admin/apps/{app_id}/users/{user_id}/grants", AdminAuthentication(auth: auth, writers: [.support]))
        let cache = cache
        register(admin, path: "/v1/admin/apps/{app_id}/users/{user_id}/grants") { try await UserActor.byOperator($0, cache: cache) }
    }

    private func register(_ group: RouteGroup, path: String, acting: @escaping @Sendable (LedgerRequestContext) async throws -> UserActor) {
        let (recorder, body, readYourWrites, clock) = (recorder, body, readYourWrites, clock)
        group.on(.post, path) { request, context in
            let who = try await acting(context)
            let input = try await body.json(GrantInput.self, from: request)
            let entitlement = try Check.text(input.entitlementID, "entitlement_id", max: 200)
            let expiresAt = try ExternalPurchaseInput.instant(input.expiresAt, "expires_at")
            let (grant, position, _) = try await recorder.grant(
                app: who.app, user: who.user, entitlementID: entitlement, expiresAt: expiresAt, reason: input.reason, by: who.actor,
                metadata: EventMetadata(source: "grant", requestID: context.requestID, actor: who.actor),
                idempotencyKey: try Self.idempotencyKey(request))
            try await readYourWrites.wait(app: who.app.id, positions: [position])
            return try JSONResponse.make(
                status: .created,
                body: GrantAnswer(
                    appUserID: who.user, grant: GrantBody(GrantSummary(grant, revokedAt: nil), at: clock.now()), reason: grant.reason,
                    by: who.actor, position: position))
        }
        group.on(.delete, path + "/{grant_id}") { request, context in
            let who = try await acting(context)
            let grantID = try Check.text(try context.path("grant_id"), "grant_id", max: 100)
            let reason = try request.query("reason") ?? ""
            let (given, revocation, position) = try await recorder.revokeGrant(
                app: who.app, user: who.user, grantID: grantID, reason: reason, by: who.actor,
                metadata: EventMetadata(source: "grant", requestID: context.requestID, actor: who.actor))
            try await readYourWrites.wait(app: who.app.id, positions: [position])
            return try JSONResponse.make(
                status: .ok,
                body: GrantAnswer(
                    appUserID: who.user, grant: GrantBody(GrantSummary(given, revokedAt: revocation.revokedAt), at: clock.now()),
                    reason: revocation.reason, by: who.actor, position: position))
        }
    }
}
