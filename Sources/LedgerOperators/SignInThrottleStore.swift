import PostgresClient
import UTCTime

/// Failed sign-ins as `ledger.sign_in_throttle` (schema/022) keeps them, one row per subject: a typed name
/// (`name:…`, whether or not it exists) or a source address (`address:…`). `SignInThrottle` decides; this reads and
/// writes. Operators' sign-ins count against both; the break-glass admin token's, in the console and the admin API,
/// against the address (a lock on the token itself would let anyone shut the break-glass for everyone).
package struct SignInThrottleStore: Sendable {
    let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    package static func name(_ name: String) -> String { "name:" + String(name.prefix(64)) }
    package static func address(_ address: String) -> String { "address:" + address }

    /// Throws `OperatorError.signInThrottled` when any subject must wait or is locked: the attempt is refused unchecked.
    package func check(_ subjects: [String], at now: Instant) async throws {
        for subject in subjects {
            let rows = try await pool.query(
                "SELECT failures, last_failure_at, locked_until FROM ledger.sign_in_throttle WHERE subject = \(subject)")
            guard let row = rows.first else { continue }
            switch try Self.throttle(row).decide(at: now) {
            case .check: continue
            case .wait(let until), .locked(let until): throw OperatorError.signInThrottled(until: until)
            }
        }
    }

    /// Counts a failure against each subject, each row read and written under its lock (concurrent failures all count).
    package func failed(_ subjects: [String], at now: Instant) async throws {
        try await pool.withConnection { connection in
            try connection.transaction { connection in
                for subject in subjects {
                    _ = try connection.query(
                        "INSERT INTO ledger.sign_in_throttle VALUES (\(subject), 0, \(now), NULL) ON CONFLICT (subject) DO NOTHING")
                    let row = try connection.query(
                        "SELECT failures, last_failure_at, locked_until FROM ledger.sign_in_throttle WHERE subject = \(subject) FOR UPDATE"
                    )[0]
                    var throttle = try Self.throttle(row)
                    if throttle.failures == 0 { throttle.lastFailureAt = nil }
                    throttle.failed(at: now)
                    _ = try connection.query(
                        """
                        UPDATE ledger.sign_in_throttle SET failures = \(Int32(clamping: throttle.failures)), last_failure_at = \(now),
                            locked_until = \(throttle.lockedUntil)::timestamptz
                        WHERE subject = \(subject)
                        """)
                }
            }
        }
    }

    /// Forgets a subject's failures (and lifts its lock); whether there were any.
    @discardableResult
    package func forget(_ subject: String) async throws -> Bool {
        !(try await pool.query("DELETE FROM ledger.sign_in_throttle WHERE subject = \(subject) RETURNING 1").isEmpty)
    }

    /// A `sign_in_throttle` row (failures, last_failure_at, locked_until).
    static func throttle(_ row: PostgresRow) throws -> SignInThrottle {
        SignInThrottle(
            failures: Int(try row.decode(Int32.self, at: 0)), lastFailureAt: try row.decode(Instant.self, at: 1),
            lockedUntil: try row.decode(Instant?.self, at: 2))
    }
}
