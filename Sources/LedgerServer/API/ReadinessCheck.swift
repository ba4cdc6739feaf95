import Hummingbird
import LedgerStore
import PostgresClient

/// What `/ready` reports.
public struct ReadinessStatus: ResponseCodable, Sendable {
    public var status: String
    public var database: String
    public var pendingMigrations: [String]
    public var message: String?

    public var isReady: Bool { status == "ready" }

    enum CodingKeys: String, CodingKey {
        case status, database, message
        case pendingMigrations = "pending_migrations"
    }
}

/// Checks that the database answers and that every known migration is applied.
public struct ReadinessCheck: Sendable {
    let pool: PostgresPool
    let migrations: [Migration]

    public init(pool: PostgresPool, migrations: [Migration]) {
        self.pool = pool
        self.migrations = migrations
    }

    public func check() async -> ReadinessStatus {
        let migrations = migrations
        do {
            let pending = try await pool.withConnection { connection in
                try SchemaMigrator(migrations: migrations).pending(on: connection)
            }
            return ReadinessStatus(status: pending.isEmpty ? "ready" : "migrating", database: "reachable",
                                   pendingMigrations: pending.map(\.name),
                                   message: pending.isEmpty ? nil : "migrations are not applied yet; run `ledger migrate`")
        } catch {
            return ReadinessStatus(status: "unavailable", database: "unreachable", pendingMigrations: [],
                                   message: "the database does not answer: \(error)")
        }
    }
}
