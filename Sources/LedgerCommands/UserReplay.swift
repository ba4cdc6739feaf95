import LedgerDomain
import LedgerPrivacy
import UTCTime

/// `ledger replay --as-of … --user …`: one user's state at an instant, folded from the log.
package enum UserReplay {
    /// The user's state as of `instant`, folded from `events` (the log names users by pseudonym, docs/erasure.md; one
    /// never named has nothing to fold), naming the user as the app does and with developer payloads opened; an
    /// erased user's, under their pseudonym, with their non-personal facts only.
    package static func snapshot(
        app: String, user: String, events: [DomainEvent], at instant: Instant, catalog: Catalog, identities: IdentityStore
    ) async throws -> (UserSnapshot, erased: Bool) {
        var pseudonym = try await identities.find(app: app, user: user)
        var erased = false
        if pseudonym == nil, let certificate = try await identities.erasure(app: app, user: user) {
            (pseudonym, erased) = (certificate.certificate.pseudonym, true)
        }
        var snapshot = UserSnapshot(appUserID: pseudonym ?? "", events: events, asOf: instant, catalog: catalog, at: instant)
        snapshot.appUserID = erased ? snapshot.appUserID : user
        let payloads = try await identities.fields.opened(app: app, snapshot.unconsumedPurchases.map(\.developerPayload))
        for (index, payload) in zip(snapshot.unconsumedPurchases.indices, payloads) {
            snapshot.unconsumedPurchases[index].developerPayload = payload
        }
        return (snapshot, erased)
    }
}
