import Logging
import PostgresClient

/// Applies `schema/` migrations in order, each in its own transaction together with its record in
/// `ledger.schema_migrations`. A session advisory lock makes instances that start at the same time take turns,
/// so each migration is applied once.
public struct SchemaMigrator: Sendable {
    /// Arbitrary constant shared by every ledger instance ("ledger" in ASCII).
    static let advisoryLockKey: Int64 = 0x6C65_6467_6572

    public let migrations: [Migration]
    let logger: Logger

    public init(migrations: [Migration], logger: Logger = Logger(label: "ledger.migrate")) {
        self.migrations = migrations
        self.logger = logger
    }

    /// Applies what is missing; returns the versions applied now (empty when the database was up to date).
    @discardableResult
    public func migrate(on connection: PostgresConnection) throws -> [Int] {
        try connection.execute("SET client_min_messages = warning")  // no NOTICEs for IF NOT EXISTS on stderr
        try connection.query("SELECT pg_advisory_lock(\(Self.advisoryLockKey))")
        defer { _ = try? connection.query("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))") }
        try connection.execute(
            """
            CREATE SCHEMA IF NOT EXISTS ledger;
            CREATE TABLE IF NOT EXISTS ledger.schema_migrations (
                version    integer PRIMARY KEY,
                name       text NOT NULL,
                checksum   text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            );
            """)
        let applied = try appliedMigrations(on: connection)
        try check(applied: applied)
        var appliedNow: [Int] = []
        for migration in migrations where applied[migration.version] == nil {
            try connection.transaction { connection in
                try connection.execute(migration.sql)
                try connection.query(
                    """
                    INSERT INTO ledger.schema_migrations (version, name, checksum)
                    VALUES (\(Int64(migration.version)), \(migration.name), \(migration.checksum))
                    """)
            }
            logger.info("applied migration", metadata: ["migration": "\(migration.name)"])
            appliedNow.append(migration.version)
        }
        return appliedNow
    }

    /// The migrations not yet applied (for readiness checks); throws when an applied one was edited.
    public func pending(on connection: PostgresConnection) throws -> [Migration] {
        let exists = try connection.query("SELECT to_regclass('ledger.schema_migrations') IS NOT NULL")
        guard try exists.first?.decode(Bool.self, at: 0) == true else { return migrations }
        let applied = try appliedMigrations(on: connection)
        try check(applied: applied)
        return migrations.filter { applied[$0.version] == nil }
    }

    private func appliedMigrations(on connection: PostgresConnection) throws -> [Int: (name: String, checksum: String)] {
        var applied: [Int: (name: String, checksum: String)] = [:]
        for row in try connection.query("SELECT version, name, checksum FROM ledger.schema_migrations") {
            applied[try row.decode(Int.self, at: 0)] = (try row.decode(String.self, at: 1), try row.decode(String.self, at: 2))
        }
        return applied
    }

    private func check(applied: [Int: (name: String, checksum: String)]) throws(MigrationError) {
        for (version, record) in applied.sorted(by: { $0.key < $1.key }) {
            guard let migration = migrations.first(where: { $0.version == version }) else {
                throw .unknownAppliedVersion(version: version, name: record.name)
            }
            if migration.checksum != record.checksum {
                throw .changedAfterApply(version: version, name: migration.name, appliedChecksum: record.checksum, fileChecksum: migration.checksum)
            }
        }
    }

    /// Whether `table` (schema-qualified, as `ledger.events`) exists: for commands that read a database that may not
    /// be migrated yet, or only partly.
    public static func tableExists(_ table: String, on connection: PostgresConnection) throws -> Bool {
        try connection.query("SELECT to_regclass(\(table)) IS NOT NULL").first?.decode(Bool.self, at: 0) == true
    }
}
