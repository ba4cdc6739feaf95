import Hummingbird
import LedgerStore
import PostgresClient

/// What `/ready` reports.
package struct ReadinessStatus: ResponseCodable, Sendable {
    package var status: String
    package var database: String
    package var pendingMigrations: [String]
    package var message: String?

    package var isReady: Bool { status == "ready" }

    enum CodingKeys: String, CodingKey {
        case status, database, message
        case pendingMigrations = "pending_migrations"
    }
}

/// Checks that the database answers and that every known migration is applied.
package struct ReadinessCheck: Sendable {
    let pool: PostgresPool
    let migrations: [Migration]

    package init(pool: PostgresPool, migrations: [Migration]) {
        self.pool = pool
        self.migrations = migrations
    }

    package func check() async -> ReadinessStatus {
        let migrations = migrations
        do {
            let pending = try await pool.withConnection { connection in
                try SchemaMigrator(migrations: migrations).pending(on: connection)
            }
            return ReadinessStatus(
                status: pending.isEmpty ? "ready" : "migrating", database: "reachable",
                pendingMigrations: pending.map(\.name),
                message: pending.isEmpty ? nil : "migrations are not applied yet; run `ledger migrate`")
        } catch {
            return ReadinessStatus(
                status: "unavailable", database: "unreachable", pendingMigrations: [],
                message: "the database does not answer: \(error)")
        }
    }
}
