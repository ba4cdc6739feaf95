import Crypto
import Foundation
import LedgerDomain
import LedgerStore
import PostgresClient
import UTCTime

/// Erases an app user (docs/erasure.md, "Erasing a user"): in one transaction, destroys the user's data key (their id
/// no longer opens), clears their blind index (no read finds them by id), lets `scrub` remove the id from whatever
/// else the transaction must clean (the webhook deliveries that name it), and stores the certificate it answers,
/// signed with the digest key. A crash before the commit leaves the user whole; after it, erased. Erasing again
/// answers the stored certificate.
package struct UserErasure: Sendable {
    /// What else names the user by id, cleaned in the same transaction: (connection, app, user id, pseudonym).
    package typealias Scrub = @Sendable (PostgresConnection, String, String, String) throws -> Void

    /// The classes of personal data an erasure destroys: the id, and the sealed fields of the user's purchases (the
    /// `appAccountToken` is an App Store purchase's developer payload).
    package static let destroyed = (["app_user_id", "app_account_token"] + PersonalField.Kind.allCases.map(\.rawValue)).sorted()

    /// The steps of an erasure, in order: the crash tests end the process's connection after each one
    /// (`afterStep`) and check that the user is whole before `committed` and erased from it on.
    package enum Step: String, Sendable, CaseIterable {
        case locked, userKeyDestroyed, purchaseKeysDestroyed, identityCleared, scrubbed, certified, committed
    }

    let identities: IdentityStore
    let signingKey: Curve25519.Signing.PrivateKey
    /// Called after each step on the erasure's connection (a no-op but in crash tests).
    package var afterStep: @Sendable (Step, PostgresConnection) throws -> Void = { _, _ in }

    package init(identities: IdentityStore, signingKey: Curve25519.Signing.PrivateKey) {
        self.identities = identities
        self.signingKey = signingKey
    }

    package enum Outcome: Sendable, Equatable {
        case erased(SignedErasureCertificate)
        case alreadyErased(SignedErasureCertificate)

        package var certificate: SignedErasureCertificate {
            switch self {
            case .erased(let c), .alreadyErased(let c): c
            }
        }
    }

    /// The channel an erasure notifies at its commit, with `<app id> <pseudonym>` (neither holds a space).
    package static let channel = "ledger_erasures"

    /// Erases `user` of `app` on behalf of `by` (an operator id, `key:<key id>`, `break-glass:…` or the shell's login),
    /// for `reason`.
    package func erase(
        app appID: String, user: String, reason: String, by erasedBy: String, at now: Instant, scrub: @escaping Scrub = { _, _, _, _ in }
    ) async throws -> Outcome {
        let (identities, key, step) = (identities, signingKey, afterStep)
        let (outcome, forgotten): (Outcome, [String]) = try await identities.pool.withConnection { connection in
            let indexKey = try identities.readyKey(on: connection)
            let suppression = Self.suppression(app: appID, user: user, indexKey: indexKey)
            let outcome: (Outcome, [String]) = try connection.transaction { connection in
                // Two erasures of one user take turns: the second answers the first's certificate.
                try connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(appID) || encode(\(suppression)::bytea, 'hex'), 38))")
                try step(.locked, connection)
                if let stored = try Self.certificate(app: appID, suppression: suppression, on: connection) { return (.alreadyErased(stored), []) }
                let index = IdentityStore.blindIndex(app: appID, user: user, key: indexKey)
                guard
                    let pseudonym = try connection.query(
                        """
                        SELECT pseudonym FROM ledger.identities WHERE app_id = \(appID) AND blind_index = \(index)::bytea FOR UPDATE
                        """
                    ).first?.decode(String.self, at: 0)
                else { throw ErasureError.unknownUser }
                guard pseudonym != user else { throw ErasureError.recordedBeforePseudonyms }
                try DataKeyStore.destroy(app: appID, subject: "user:" + pseudonym, at: now, on: connection)
                try step(.userKeyDestroyed, connection)
                let purchases = try Self.purchases(app: appID, pseudonym: pseudonym, on: connection).map(SealedFields.subject)
                try DataKeyStore.destroy(app: appID, subjects: purchases, at: now, on: connection)
                try step(.purchaseKeysDestroyed, connection)
                try connection.query(
                    """
                    UPDATE ledger.identities SET blind_index = NULL, sealed_user_id = NULL, erased_at = \(now)
                    WHERE app_id = \(appID) AND pseudonym = \(pseudonym)
                    """)
                try step(.identityCleared, connection)
                try scrub(connection, appID, user, pseudonym)
                try step(.scrubbed, connection)
                let horizon = try CommitHorizon.read(on: connection)
                let chain = try ChainDigest.measure(on: connection, app: appID, horizon: horizon)
                let signed = try SignedErasureCertificate(
                    ErasureCertificate(
                        appID: appID, pseudonym: pseudonym, destroyed: Self.destroyed, erasedAt: now, erasedBy: erasedBy,
                        chainEventCount: chain.count, chainHeadsHash: chain.headsHash),
                    key: key)
                let json = String(decoding: try JSONEncoder().encode(signed), as: UTF8.self)
                try connection.query(
                    """
                    INSERT INTO ledger.erasures (app_id, pseudonym, suppression, certificate, reason, erased_by, erased_at)
                    VALUES (\(appID), \(pseudonym), \(suppression)::bytea, \(json)::jsonb, \(reason), \(erasedBy), \(now))
                    """)
                // Every other instance hears of it at the commit (`ErasureNotices`): it ends the user's live streams
                // and forgets the data keys it holds.
                try connection.query("SELECT pg_notify(\(Self.channel), \(appID + " " + pseudonym))")
                try step(.certified, connection)
                return (.erased(signed), purchases)
            }
            if case .erased = outcome.0 { try step(.committed, connection) }
            return outcome
        }
        identities.fields.forget(app: appID, subjects: forgotten)
        return outcome
    }

    /// Every purchase the user ever had: what the read models give them now, and every purchase an event of the log
    /// names them in (their own stream's links and transfers; a purchase restored to another user since, whose fields
    /// still carry this user's token; events not yet in the read models). The log is read once, by the pseudonym (random,
    /// so a text match is exact; the events are decoded to be sure): an erasure costs a scan of the app's log.
    static func purchases(app appID: String, pseudonym: String, on connection: PostgresConnection) throws -> Set<String> {
        var found = Set(
            try connection.query(
                """
                SELECT original_transaction_id FROM ledger.subscriptions WHERE app_id = \(appID) AND owner_app_user_id = \(pseudonym)
                UNION SELECT original_transaction_id FROM ledger.purchases WHERE app_id = \(appID) AND owner_app_user_id = \(pseudonym)
                """
            ).map { try $0.decode(String.self, at: 0) })
        let quoted = "%\"" + pseudonym + "\"%"
        let events = try connection.query(
            """
            SELECT event_type, schema_version, payload::text FROM ledger.events
            WHERE app_id = \(appID) AND (stream_id = \(LedgerStreams.user(appUserID: pseudonym)) OR payload::text LIKE \(quoted))
            """)
        for row in events {
            let event = try LedgerEvent.decode(
                type: try row.decode(String.self, at: 0), schemaVersion: try row.decode(Int32.self, at: 1),
                payload: try row.decode(String.self, at: 2))
            if event.userIDs.contains(pseudonym) { found.formUnion(event.originalTransactionIDs) }
        }
        return found
    }

    /// HMAC-SHA-256 of the app and the user id under a key derived from the blind-index key: not the blind index (which
    /// erasure clears), and nothing without the key and the id.
    static func suppression(app appID: String, user: String, indexKey: SymmetricKey) -> [UInt8] {
        let key = SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: Array("erasure-suppression".utf8), using: indexKey))
        return Array(HMAC<SHA256>.authenticationCode(for: Array(appID.utf8) + [0] + Array(user.utf8), using: key))
    }

    static func certificate(app appID: String, suppression: [UInt8], on connection: PostgresConnection) throws -> SignedErasureCertificate? {
        guard
            let text = try connection.query(
                "SELECT certificate::text FROM ledger.erasures WHERE app_id = \(appID) AND suppression = \(suppression)::bytea"
            ).first?.decode(String.self, at: 0)
        else { return nil }
        return try JSONDecoder().decode(SignedErasureCertificate.self, from: Data(text.utf8))
    }
}

/// Why a user cannot be erased.
package enum ErasureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The ledger never heard of the id in this app.
    case unknownUser
    /// The user was recorded before pseudonyms, so their id is still in the log (docs/erasure.md, "Upgrading").
    case recordedBeforePseudonyms

    package var description: String {
        switch self {
        case .unknownUser: "the ledger knows no user with this id in this app"
        case .recordedBeforePseudonyms:
            "this user was recorded before pseudonyms, so their id is still in the log itself; stop the service and run "
                + "`ledger migrate --seal-history` first (docs/erasure.md, \"Upgrading\"), then erase them"
        }
    }
}
