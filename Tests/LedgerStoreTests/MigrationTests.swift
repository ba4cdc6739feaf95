import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing

@Suite struct MigrationTests {
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: try await TestDatabase.makeDatabase()), size: 1)
        defer { Task { await pool.shutdown() } }
        return try await pool.withConnection(body)
    }

    @Test func rerunningIsANoOp() async throws {
        let migrations = try SchemaLocation.migrations()
        let (first, second, pending) = try await withConnection { connection in
            let migrator = SchemaMigrator(migrations: migrations)
            return (try migrator.migrate(on: connection), try migrator.migrate(on: connection), try migrator.pending(on: connection))
        }
        #expect(first == migrations.map(\.version))
        #expect(second.isEmpty)
        #expect(pending.isEmpty)
    }

    @Test func anEditedAppliedMigrationIsRefused() async throws {
        let original = [Migration(version: 1, name: "001_first", sql: "CREATE TABLE ledger.t (id int);")]
        let edited = [Migration(version: 1, name: "001_first", sql: "CREATE TABLE ledger.t (id bigint);")]
        try await withConnection { connection in
            try SchemaMigrator(migrations: original).migrate(on: connection)
            #expect {
                try SchemaMigrator(migrations: edited).migrate(on: connection)
            } throws: { error in
                guard case .changedAfterApply(let version, _, _, _) = error as? MigrationError else { return false }
                return version == 1 && "\(error)".contains("new numbered migration")
            }
        }
    }

    @Test func instancesStartingTogetherApplyEachMigrationOnce() async throws {
        let url = try await TestDatabase.makeDatabase()
        let migrations = try SchemaLocation.migrations()
        let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1)
                    defer { Task { await pool.shutdown() } }
                    return try await pool.withConnection { try SchemaMigrator(migrations: migrations).migrate(on: $0) }
                }
            }
            return try await group.reduce(into: [Int]()) { $0 += $1 }
        }
        #expect(applied.sorted() == migrations.map(\.version))
    }

    @Test func schemaFilesAreNumberedAndLoadInOrder() throws {
        let migrations = try SchemaLocation.migrations()
        #expect(!migrations.isEmpty)
        #expect(migrations.map(\.version) == migrations.map(\.version).sorted())
    }
}
