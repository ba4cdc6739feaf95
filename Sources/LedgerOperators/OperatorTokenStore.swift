import Crypto
import LedgerStore
import PostgresClient
import UTCTime

/// An operator's API token as listed (never its text, which is shown once when it is made).
package struct OperatorToken: Sendable, Equatable {
    package var id: String
    package var operatorName: String
    package var name: String
    package var role: OperatorRole
    package var createdAt: Instant
    package var expiresAt: Instant
    package var revokedAt: Instant?
}

/// Who an accepted token speaks for: its operator and the role it carries.
package struct OperatorCaller: Sendable, Equatable {
    package var operatorID: String
    package var name: String
    package var role: OperatorRole
}

/// Operators' tokens for the admin API (`ledger.operator_tokens`, schema/020): `lop_` and 256 random bits, kept as
/// their SHA-256. A token carries its operator's role or the auditor's (read-only), never another: roles do not
/// nest, so the only narrower role is the one that writes nothing.
package struct OperatorTokenStore: Sendable {
    package static let prefix = "lop_"
    /// The longest a token may live.
    package static let longestLife: Duration = .seconds(366 * 86_400)
    let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    /// A new token for `operatorName`, living `life`; its text, shown this once.
    package func create(
        operatorName: String, role: OperatorRole?, name: String, life: Duration, by actor: OperatorActor, at now: Instant
    ) async throws
        -> (token: OperatorToken, text: String)
    {
        guard life > .zero, life <= Self.longestLife else {
            throw OperatorError.invalidToken("a token lives from a second to 366 days")
        }
        guard
            let owner = try await pool.query(
                "SELECT operator_id, role, disabled_at IS NOT NULL FROM ledger.operators WHERE name = \(operatorName)"
            ).first
        else { throw OperatorError.unknownOperator(operatorName) }
        guard try !owner.decode(Bool.self, at: 2) else { throw OperatorError.invalidToken("\(operatorName) is disabled") }
        let operatorRole = OperatorRole(rawValue: try owner.decode(String.self, at: 1)) ?? .auditor
        let carried = role ?? operatorRole
        guard carried == operatorRole || carried == .auditor else {
            throw OperatorError.invalidToken(
                "a token carries its operator's role (\(operatorRole.rawValue)) or auditor, not \(carried.rawValue)")
        }
        let text = Self.prefix + RandomToken.secret()
        let id = RandomToken.identifier(prefix: "tok_")
        let expires = now.adding(life)
        _ = try await pool.query(
            """
            INSERT INTO ledger.operator_tokens (token_id, operator_id, token_hash, name, role, created_at, expires_at)
            VALUES (\(id), \(try owner.decode(String.self, at: 0)), \(Self.digest(text)), \(name), \(carried.rawValue), \(now), \(expires))
            """)
        try await OperatorActionLog(pool: pool).append(
            "token.create", target: id, detail: "for \(operatorName), role \(carried.rawValue), until \(expires.rfc3339)", by: actor, at: now)
        return (
            OperatorToken(id: id, operatorName: operatorName, name: name, role: carried, createdAt: now, expiresAt: expires, revokedAt: nil),
            text
        )
    }

    /// The tokens of `operatorName` (every operator's when nil), newest first.
    package func list(operatorName: String?) async throws -> [OperatorToken] {
        try await pool.query(
            """
            SELECT t.token_id, o.name, t.name, t.role, t.created_at, t.expires_at, t.revoked_at
            FROM ledger.operator_tokens t JOIN ledger.operators o ON o.operator_id = t.operator_id
            WHERE \(operatorName)::text IS NULL OR o.name = \(operatorName)::text
            ORDER BY t.created_at DESC, t.token_id
            """
        ).map { row in
            OperatorToken(
                id: try row.decode(String.self, at: 0), operatorName: try row.decode(String.self, at: 1),
                name: try row.decode(String.self, at: 2), role: OperatorRole(rawValue: try row.decode(String.self, at: 3)) ?? .auditor,
                createdAt: try row.decode(Instant.self, at: 4), expiresAt: try row.decode(Instant.self, at: 5),
                revokedAt: try row.decode(Instant?.self, at: 6))
        }
    }

    /// Revokes the token `id` from `now` on (again: no change); false when there is no such token.
    @discardableResult
    package func revoke(id: String, by actor: OperatorActor, at now: Instant) async throws -> Bool {
        let revoked =
            !(try await pool.query(
                "UPDATE ledger.operator_tokens SET revoked_at = coalesce(revoked_at, \(now)) WHERE token_id = \(id) RETURNING token_id"
            ).isEmpty)
        if revoked { try await OperatorActionLog(pool: pool).append("token.revoke", target: id, by: actor, at: now) }
        return revoked
    }

    /// The caller a presented token speaks for, or nil: unknown, revoked, expired, or its operator disabled. The
    /// role is the token's, narrowed to auditor when its operator no longer holds it.
    package func authenticate(_ text: String, at now: Instant) async throws -> OperatorCaller? {
        guard text.hasPrefix(Self.prefix), text.utf8.count <= 100 else { return nil }
        guard
            let row = try await pool.query(
                """
                SELECT o.operator_id, o.name, CASE WHEN t.role = o.role THEN t.role ELSE 'auditor' END
                FROM ledger.operator_tokens t JOIN ledger.operators o ON o.operator_id = t.operator_id
                WHERE t.token_hash = \(Self.digest(text)) AND t.revoked_at IS NULL AND t.expires_at > \(now) AND o.disabled_at IS NULL
                """
            ).first
        else { return nil }
        return OperatorCaller(
            operatorID: try row.decode(String.self, at: 0), name: try row.decode(String.self, at: 1),
            role: OperatorRole(rawValue: try row.decode(String.self, at: 2)) ?? .auditor)
    }

    static func digest(_ text: String) -> [UInt8] { Array(SHA256.hash(data: Array(text.utf8))) }
}
