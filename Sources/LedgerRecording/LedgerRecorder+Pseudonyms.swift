import LedgerDomain
import LedgerPrivacy
import LedgerTenancy

/// Where app user ids become pseudonyms (docs/erasure.md): once, at the edge of the application layer. What is
/// decided from the log is in pseudonyms already and is never mapped again.
extension LedgerRecorder {
    /// The pseudonym that stands for `user` in the log.
    func pseudonym(app: AppRecord, _ user: String) async throws -> String {
        try await identities.pseudonym(app: app.id, user: user)
    }

    /// `events` as the log stores them: every app user id replaced by its pseudonym, every other personal field
    /// sealed under its purchase's key (`SealedFields`).
    func pseudonymous(app: AppRecord, _ events: [LedgerEvent]) async throws -> [LedgerEvent] {
        let ids = Set(events.flatMap(\.userIDs))
        let pseudonyms = ids.isEmpty ? [:] : try await identities.pseudonyms(app: app.id, users: ids)
        let mapped = ids.isEmpty ? events : events.map { $0.mappingUserIDs { pseudonyms[$0] ?? $0 } }
        return try await identities.fields.sealing(app: app.id, mapped)
    }

    /// A refusal the rules decided on pseudonyms, naming the current owners as the app does.
    func revealingOwners(_ refusal: RestoreRefusal, app: AppRecord) async throws -> RestoreRefusal {
        var refusal = refusal
        let ids = try await identities.userIDs(app: app.id, pseudonyms: refusal.conflicts.map(\.ownerUserID))
        for index in refusal.conflicts.indices {
            refusal.conflicts[index].ownerUserID = ids[refusal.conflicts[index].ownerUserID] ?? refusal.conflicts[index].ownerUserID
        }
        return refusal
    }
}
