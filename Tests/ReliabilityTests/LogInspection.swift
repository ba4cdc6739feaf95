import Foundation
import LedgerServerTestSupport
import PostgresClient
import PostgresTestSupport

/// Reads the event log and the projections straight from PostgreSQL, to check what the server claimed. Each read
/// connects anew (a test may restart the cluster between reads) on a thread of its own (`Blocking`): libpq blocks.
struct LogInspection: Sendable {
    let databaseURL: String

    private func reading<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let databaseURL = databaseURL
        return try await Blocking.run { try body(try PostgresConnection.connect(PostgresConfiguration(connectionString: databaseURL))) }
    }

    /// `text` with every pseudonym of `app` revealed as the app user id it stands for (`TestMasterKey`, which the test
    /// servers use): two apps of the same facts name the same users by different pseudonyms.
    func revealer(app: String) async throws -> @Sendable (String) -> String {
        let pool = PostgresPool(configuration: try PostgresConfiguration(connectionString: databaseURL), size: 1)
        defer { Task { await pool.shutdown() } }
        return try await TestMasterKey.revealer(app: app, pool: pool)
    }

    /// How many events of `app` carry each idempotency key.
    func idempotencyKeyCounts(app: String) async throws -> [String: Int] {
        try await reading { connection in
            let rows = try connection.query("SELECT idempotency_key, count(*) FROM ledger.events WHERE app_id = \(app) GROUP BY 1")
            return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode(String.self, at: 0), Int(try $0.decode(Int64.self, at: 1))) })
        }
    }

    func eventCount(app: String? = nil) async throws -> Int {
        try await reading { connection in
            let rows =
                try app.map { try connection.query("SELECT count(*) FROM ledger.events WHERE app_id = \($0)") }
                ?? connection.query("SELECT count(*) FROM ledger.events")
            return Int(try rows.first?.decode(Int64.self, at: 0) ?? 0)
        }
    }

    /// Every read-model row of `app` as `table|key` → the row as JSON (without the app id and the log position, so
    /// two apps fed the same data compare equal).
    func projectionStates(app: String) async throws -> [String: String] {
        try await reading { connection in
            var states: [String: String] = [:]
            for (table, key) in [
                ("subscriptions", "original_transaction_id"), ("purchases", "original_transaction_id"),
                ("paying_purchases", "original_transaction_id"), ("paying_users", "original_transaction_id || '|' || month")
            ] {
                let rows = try connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT '\(table)|' || \(key), replace((to_jsonb(t) - 'app_id' - 'last_position')::text, $1, '<app>')
                            FROM ledger.\(table) t WHERE app_id = $1
                            """, bindings: [app.postgresValue]))
                for row in rows { states[try row.decode(String.self, at: 0)] = try row.decode(String.self, at: 1) }
            }
            return states
        }
    }

    /// True when every projection's checkpoint has reached the newest event of the log. Statements of their own, compared
    /// here: on Citus the checkpoints are a coordinator table and the log is distributed.
    func projectionsCaughtUp() async throws -> Bool {
        try await reading { connection in
            let newest = try connection.query(
                "SELECT transaction_id, position FROM ledger.events ORDER BY transaction_id DESC, position DESC LIMIT 1"
            ).first.map { (try $0.decode(UInt64.self, at: 0), try $0.decode(Int64.self, at: 1)) }
            let checkpoints = try connection.query("SELECT transaction_id, position FROM ledger.projection_checkpoints").map {
                (try $0.decode(UInt64.self, at: 0), try $0.decode(Int64.self, at: 1))
            }
            guard let newest else { return true }
            return checkpoints.count >= 3 && checkpoints.allSatisfy { $0 >= newest }
        }
    }

    /// Polls until the server's projection worker has applied every event, up to `timeout`.
    func waitForProjections(timeout: Duration = .seconds(120)) async throws {
        let deadline = ContinuousClock.now + timeout
        while try await !projectionsCaughtUp() {
            guard ContinuousClock.now < deadline else { throw InspectionError.timedOut("projections did not catch up within \(timeout)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Events each projection has applied so far (its checkpoint's place in the commit-safe order).
    func appliedCounts() async throws -> [String: Int] {
        try await reading { connection in
            let rows = try connection.query(
                """
                SELECT c.projection, (SELECT count(*) FROM ledger.events e WHERE (e.transaction_id, e.position) <= (c.transaction_id, c.position))
                FROM ledger.projection_checkpoints c
                """)
            return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode(String.self, at: 0), Int(try $0.decode(Int64.self, at: 1))) })
        }
    }

    /// True while some backend holds a projection's advisory lock: a batch transaction is open.
    func batchInProgress() async throws -> Bool {
        try await reading { connection in
            try connection.query(
                """
                SELECT count(*) > 0 FROM pg_locks WHERE locktype = 'advisory' AND granted
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                """
            )
            .first?.decode(Bool.self, at: 0) ?? false
        }
    }

    func execute(_ sql: String) async throws {
        try await reading { connection in try connection.execute(sql) }
    }

    func query(_ sql: String) async throws -> PostgresRows {
        try await reading { connection in try connection.query(PostgresQuery(unsafeSQL: sql, bindings: [])) }
    }
}

enum InspectionError: Error, CustomStringConvertible {
    case timedOut(String)
    var description: String {
        switch self {
        case .timedOut(let message): message
        }
    }
}
