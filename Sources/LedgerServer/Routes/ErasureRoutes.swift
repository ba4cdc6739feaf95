import Hummingbird
import LedgerStore
import LedgerDomain
import LedgerOperators
import LedgerPrivacy
import LedgerTenancy
import LedgerWebhooks
import UTCTime

/// Erasing a user (docs/erasure.md): `DELETE /v1/users/{user_id}?reason=…` with the app's secret key (the developer's
/// backend, when a customer deletes their account) and `DELETE /v1/admin/apps/{app_id}/users/{user_id}?reason=…` for
/// operators with the admin or support role. The answer is the signed erasure certificate, the same one however often
/// it is asked; an id the app never named is a 404. The user's streams on this instance end.
struct ErasureRoutes {
    /// Nil without a digest signing key: nothing can sign the certificate, so erasure refuses.
    let erasure: UserErasure?
    let live: LiveHub
    let statusCache: StatusCache
    let clock: LedgerClock

    func register(on routes: RouteTable, auth: Authenticator) {
        let backend = routes.group("/v1/users/{user_id}", UserAuthentication(auth: auth, timeout: routes.timeout, secretOnly: true))
        register(backend, path: "/v1/users/{user_id}") { try UserActor.byBackend($0) }
        let admin = routes.group("/v1/admin/apps/{app_id}/users/{user_id}", AdminAuthentication(auth: auth, writers: [.support, .admin]))
        let cache = auth.cache
        register(admin, path: "/v1/admin/apps/{app_id}/users/{user_id}") { try await UserActor.byOperator($0, cache: cache) }
    }

    private func register(_ group: RouteGroup, path: String, acting: @escaping @Sendable (LedgerRequestContext) async throws -> UserActor) {
        let (erasure, live, statusCache, clock) = (erasure, live, statusCache, clock)
        group.on(.delete, path) { request, context in
            let who = try await acting(context)
            let reason = try Check.text(try request.query("reason") ?? "", "reason", max: 500)
            guard let erasure else {
                throw APIError(
                    .conflict, "no_digest_key",
                    "erasure answers with a certificate signed by the digest key, and this server has none; "
                        + "start it with --signing-key or LEDGER_SIGNING_KEY_FILE")
            }
            let outcome: UserErasure.Outcome
            do {
                outcome = try await erasure.erase(
                    app: who.app.id, user: who.user, reason: reason, by: who.actor, at: clock.now()
                ) { connection, app, user, pseudonym in
                    try WebhookStore.forget(app: app, user: user, pseudonym: pseudonym, on: connection)
                }
            } catch ErasureError.unknownUser {
                throw APIError(.notFound, "unknown_user", "this app has no user with this id; check it (ids are case-sensitive)")
            } catch ErasureError.recordedBeforePseudonyms {
                throw APIError(.conflict, "recorded_before_pseudonyms", ErasureError.recordedBeforePseudonyms.description)
            }
            live.end(app: who.app.id, pseudonym: outcome.certificate.certificate.pseudonym)
            statusCache.forget(app: who.app.id, pseudonym: outcome.certificate.certificate.pseudonym)
            return try JSONResponse.make(status: .ok, body: outcome.certificate)
        }
    }
}
