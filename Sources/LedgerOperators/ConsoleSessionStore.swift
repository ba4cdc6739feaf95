import Crypto
import LedgerDomain
import LedgerStore
import PostgresClient
import UTCTime

/// A signed-in console user: who (an operator, or the name given with the break-glass admin token; recorded with every
/// write), with which role, and the session's CSRF token.
package struct ConsoleSession: Sendable, Equatable {
    package var actor: String
    package var csrf: String
    package var expiresAt: Instant
    /// The operator signed in; nil for a break-glass session of `LEDGER_ADMIN_TOKEN`.
    package var operatorID: String? = nil
    /// The operator's role now (a break-glass session may do everything).
    package var role: OperatorRole = .admin

    package var isBreakGlass: Bool { operatorID == nil }

    /// Whether the session may do what needs one of `roles`.
    package func may(_ roles: Set<OperatorRole>) -> Bool { isBreakGlass || roles.contains(role) }
}

/// Sessions (`ledger.console_sessions`, found by the SHA-256 of the cookie's token). Times come from the service's
/// clock, so tests move them. What is done in them goes to the operator record (`OperatorActionLog`).
package struct ConsoleSessionStore: Sendable {
    let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    /// A fresh random token: 32 bytes from the system's CSPRNG, hex.
    package static func token() -> String { Hex.string(RandomToken.bytes(32)) }

    static func digest(_ token: String) -> [UInt8] { Array(SHA256.hash(data: Array(token.utf8))) }

    /// Starts a session for `actor` (the operator `operatorID` with `role`, or break-glass when nil); returns the
    /// cookie's token (only its hash is stored).
    package func start(
        actor: String, operatorID: String? = nil, role: OperatorRole = .admin, now: Instant, lifetimeSeconds: Int64
    ) async throws -> (token: String, session: ConsoleSession) {
        let token = Self.token()
        let session = ConsoleSession(
            actor: actor, csrf: Self.token(),
            expiresAt: Instant(microsecondsSinceEpoch: now.microsecondsSinceEpoch + lifetimeSeconds * 1_000_000),
            operatorID: operatorID, role: role)
        let hash = Self.digest(token)
        _ = try await pool.query(
            """
            INSERT INTO ledger.console_sessions (token_hash, actor, csrf_token, created_at, expires_at, operator_id, role)
            VALUES (\(hash), \(session.actor), \(session.csrf), \(now), \(session.expiresAt), \(operatorID), \(role.rawValue))
            """)
        // Expired sessions are of no use to anyone: cleared as new ones start.
        _ = try await pool.query("DELETE FROM ledger.console_sessions WHERE expires_at < \(now)")
        return (token, session)
    }

    /// The live session of a cookie's token, or nil: unknown, signed out, past its absolute expiry, idle since before
    /// `idleSince`, or its operator disabled. Finding it counts as activity (`last_seen_at`). The operator's role is read
    /// now, so a change of role or a disabling holds from the next request, on every instance.
    package func find(token: String, now: Instant, idleSince: Instant? = nil) async throws -> ConsoleSession? {
        guard token.utf8.count == 64 else { return nil }
        let rows = try await pool.query(
            """
            WITH seen AS (
                UPDATE ledger.console_sessions SET last_seen_at = \(now)
                WHERE token_hash = \(Self.digest(token)) AND expires_at > \(now)
                  AND coalesce(last_seen_at, created_at) > coalesce(\(idleSince)::timestamptz, '-infinity')
                RETURNING actor, csrf_token, expires_at, operator_id, role
            )
            SELECT s.actor, s.csrf_token, s.expires_at, s.operator_id, coalesce(o.role, s.role)
            FROM seen s LEFT JOIN ledger.operators o ON o.operator_id = s.operator_id
            WHERE s.operator_id IS NULL OR o.disabled_at IS NULL
            """)
        guard let row = rows.first else { return nil }
        return ConsoleSession(
            actor: try row.decode(String.self, at: 0), csrf: try row.decode(String.self, at: 1),
            expiresAt: try row.decode(Instant.self, at: 2), operatorID: try row.decode(String?.self, at: 3),
            role: OperatorRole(rawValue: try row.decode(String.self, at: 4)) ?? .auditor)
    }

    /// Ends every session of the operator (sign out everywhere); how many there were.
    @discardableResult
    package func endAll(operatorID: String) async throws -> Int {
        try await pool.query("DELETE FROM ledger.console_sessions WHERE operator_id = \(operatorID) RETURNING 1").count
    }

    package func end(token: String) async throws {
        _ = try await pool.query("DELETE FROM ledger.console_sessions WHERE token_hash = \(Self.digest(token))")
    }
}
