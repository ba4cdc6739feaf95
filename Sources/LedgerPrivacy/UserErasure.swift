import Crypto
import Foundation
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

    /// The classes of personal data an erasure destroys today (the sealed fields join when they are sealed).
    package static let destroyed = ["app_user_id"]

    let identities: IdentityStore
    let signingKey: Curve25519.Signing.PrivateKey

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

    /// Erases `user` of `app` on behalf of `by` (an operator id, `key:<key id>`, `break-glass:…` or the shell's login),
    /// for `reason`.
    package func erase(
        app appID: String, user: String, reason: String, by erasedBy: String, at now: Instant, scrub: @escaping Scrub = { _, _, _, _ in }
    ) async throws -> Outcome {
        let (identities, key) = (identities, signingKey)
        return try await identities.pool.withConnection { connection in
            let indexKey = try identities.readyKey(on: connection)
            let suppression = Self.suppression(app: appID, user: user, indexKey: indexKey)
            return try connection.transaction { connection in
                // Two erasures of one user take turns: the second answers the first's certificate.
                try connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(appID) || encode(\(suppression)::bytea, 'hex'), 38))")
                if let stored = try Self.certificate(app: appID, suppression: suppression, on: connection) { return .alreadyErased(stored) }
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
                try connection.query(
                    """
                    UPDATE ledger.identities SET blind_index = NULL, sealed_user_id = NULL, erased_at = \(now)
                    WHERE app_id = \(appID) AND pseudonym = \(pseudonym)
                    """)
                try scrub(connection, appID, user, pseudonym)
                let horizon = try connection.query("SELECT pg_snapshot_xmin(pg_current_snapshot())").first?.decode(UInt64.self, at: 0) ?? 0
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
                return .erased(signed)
            }
        }
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
            "this user was recorded before pseudonyms, so their id is still in the log itself; erasing them needs the log's "
                + "migration (docs/erasure.md, \"Upgrading\"), which this version does not have yet"
        }
    }
}
