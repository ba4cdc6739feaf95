import LedgerDomain
import LedgerPrivacy
import LedgerStore
import LedgerTenancy
import UTCTime

/// Support grants, recorded in the user's own stream (`user:<pseudonym>`), decided by `GrantRules`. A grant
/// names a fresh id and appends without a version check (nothing it depends on can change under it but the catalog);
/// a revocation is decided from the user's stream and appended with that stream's version as the expectation, so
/// two revocations of one grant cannot both land.
extension LedgerRecorder {
    /// Gives `user` the app's `entitlementID` until `expiresAt`; the grant as recorded.
    package func grant(
        app: AppRecord, user: String, entitlementID: String, expiresAt: Instant, reason: String, by operatorID: String,
        metadata: EventMetadata
    ) async throws -> (grant: EntitlementGrant, position: Int64) {
        let now = clock.now()
        let user = try await pseudonym(app: app, user)
        let catalog = try await tenancy.products(app: app.id).catalog
        let grant = try GrantRules.give(
            grantID: RandomToken.identifier(prefix: "grant_"), appUserID: user, entitlementID: entitlementID,
            expiresAt: expiresAt, reason: reason, by: operatorID, at: now, catalog: catalog
        ).get()
        let event = LedgerEvent.grantGiven(grant)
        let result = try await store.append(
            app: app.id, stream: LedgerStreams.user(appUserID: user), expected: .any,
            events: [NewEvent(event, idempotencyKey: event.idempotencyKey, occurredAt: now, metadata: metadata)])
        return (grant, result.positions[0])
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
