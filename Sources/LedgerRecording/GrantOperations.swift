import LedgerDomain
import LedgerPrivacy
import LedgerStore
import LedgerTenancy
import UTCTime

/// Support grants, recorded in the user's own stream (`user:<pseudonym>`), decided by `GrantRules`. A grant
/// names a fresh id and appends without a version check (nothing it depends on can change under it but the catalog);
/// a revocation is decided from the user's stream and appended with that stream's version as the expectation, so
/// two revocations of one grant cannot both land.
///
/// A grant given with an idempotency key (the API's `Idempotency-Key`) takes its id from the app, the user's
/// pseudonym and the key, so a retry finds the grant the first request gave (the log's unique key on the event keeps
/// two concurrent ones to one event): the same values answer that grant again, other values are refused.
extension LedgerRecorder {
    /// Gives `user` the app's `entitlementID` until `expiresAt`; the grant as recorded, and whether this call gave it
    /// (false: the grant an earlier call gave under `idempotencyKey`).
    package func grant(
        app: AppRecord, user: String, entitlementID: String, expiresAt: Instant, reason: String, by operatorID: String,
        metadata: EventMetadata, idempotencyKey: String? = nil
    ) async throws -> (grant: EntitlementGrant, position: Int64, given: Bool) {
        let now = clock.now()
        let user = try await pseudonym(app: app, user)
        let stream = LedgerStreams.user(appUserID: user)
        let grantID =
            idempotencyKey.map { RandomToken.identifier(prefix: "grant_", derivedFrom: ["grant", app.id, user, $0]) }
            ?? RandomToken.identifier(prefix: "grant_")
        func given() async throws -> (grant: EntitlementGrant, position: Int64, given: Bool)? {
            guard let (original, position) = try await grantGiven(grantID, app: app.id, stream: stream) else { return nil }
            guard original.entitlementID == entitlementID, original.expiresAt == expiresAt, original.reason == reason else {
                throw GrantError.idempotencyKeyReused(grantID: grantID)
            }
            return (original, position, false)
        }
        let catalog = try await tenancy.products(app: app.id).catalog
        let grant: EntitlementGrant
        do {
            grant = try GrantRules.give(
                grantID: grantID, appUserID: user, entitlementID: entitlementID,
                expiresAt: expiresAt, reason: reason, by: operatorID, at: now, catalog: catalog
            ).get()
        } catch {
            // A retry the rules would refuse now (its expiry has passed, the catalog changed) still finds its grant.
            if idempotencyKey != nil, let earlier = try await given() { return earlier }
            throw error
        }
        let event = LedgerEvent.grantGiven(grant)
        let result = try await store.append(
            app: app.id, stream: stream, expected: .any,
            events: [NewEvent(event, idempotencyKey: event.idempotencyKey, occurredAt: now, metadata: metadata)])
        // A retry (or a request racing the first one): the log's unique key kept the first event, which answers.
        if result.isDuplicate, let earlier = try await given() { return earlier }
        return (grant, result.positions[0], true)
    }

    /// The grant `grantID` as given in `stream`, and the position of the event that gave it.
    private func grantGiven(_ grantID: String, app: String, stream: String) async throws -> (EntitlementGrant, Int64)? {
        for recorded in try await store.readStream(app: app, stream: stream) {
            if case .grantGiven(let grant) = DomainEventDecoding.decode(recorded)?.event, grant.grantID == grantID {
                return (grant, recorded.position)
            }
        }
        return nil
    }

    /// Ends `user`'s grant `grantID` now; the revocation as recorded. `GrantError` says why not (no such grant,
    /// already revoked, also by a concurrent call, or already expired).
    package func revokeGrant(
        app: AppRecord, user: String, grantID: String, reason: String, by operatorID: String, metadata: EventMetadata
    ) async throws -> (given: EntitlementGrant, revocation: GrantRevocation, position: Int64) {
        guard let user = try await identities.find(app: app.id, user: user) else { throw GrantError.unknownGrant(grantID: grantID) }
        let stream = LedgerStreams.user(appUserID: user)
        for _ in 0..<PurchaseOperations.attempts {
            let recorded = try await store.readStream(app: app.id, stream: stream)
            let grants = fold(GrantsReducer.self, key: user, events: recorded.compactMap(DomainEventDecoding.decode), asOf: nil)
            let now = clock.now()
            let revocation = try GrantRules.revoke(grants, grantID: grantID, reason: reason, by: operatorID, at: now).get()
            guard let given = grants.grants[grantID]?.given else { throw GrantError.unknownGrant(grantID: grantID) }
            let event = LedgerEvent.grantRevoked(revocation)
            do {
                let result = try await store.append(
                    app: app.id, stream: stream, expected: .exact(recorded.last?.streamVersion ?? 0),
                    events: [NewEvent(event, idempotencyKey: event.idempotencyKey, occurredAt: now, metadata: metadata)])
                if result.isDuplicate { throw GrantError.alreadyRevoked(grantID: grantID, revokedAt: now) }
                return (given, revocation, result.positions[0])
            } catch EventStoreError.versionConflict {
                continue  // the user's stream moved meanwhile: decide again on its new state
            }
        }
        throw EventStoreError.contention(appID: app.id, streamID: stream)
    }
}
