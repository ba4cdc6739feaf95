import Foundation
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing

/// The schema stays distributable by tenant (Citus is not installable here, so its rules are checked on the catalog
/// of a migrated database). `Deploy/citus/distribute.sql`, the statements an operator runs, names every table of the
/// schema exactly once; every table it distributes by `app_id` has `app_id` first in each unique index and each
/// foreign key (Citus enforces uniqueness and references within one shard); a reference table references no
/// distributed table; and every table comes after the tables it references, the order Citus needs.
@Suite struct CitusReadinessTests {
    enum Placement: Equatable { case distributed, reference, local }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Deploy/citus/distribute.sql")

    /// `ledger.<table>` → its placement, in the script's order.
    static func placements() throws -> [(table: String, placement: Placement)] {
        let text = try String(contentsOf: script, encoding: .utf8)
        let pattern = #/^SELECT (create_distributed_table|create_reference_table|citus_add_local_table_to_metadata)\('ledger\.(\w+)'(, '(\w+)')?/#
        return try text.split(separator: "\n").compactMap { line -> (String, Placement)? in
            guard let match = line.firstMatch(of: pattern) else { return nil }
            switch match.output.1 {
            case "create_distributed_table":
                #expect(match.output.4 == "app_id", "\(line): distributed by something other than app_id")
                return (String(match.output.2), .distributed)
            case "create_reference_table": return (String(match.output.2), .reference)
            default: return (String(match.output.2), .local)
            }
        }
    }

    struct Catalog: Sendable {
        var tables: Set<String>
        /// table → the columns of each unique index, in order (a column of an expression index is "<expression>").
        var uniqueIndexes: [(table: String, index: String, columns: [String])]
        /// Foreign keys: referencing table and columns, referenced table.
        var foreignKeys: [(table: String, name: String, columns: [String], referenced: String)]
    }

    /// The catalog of a freshly migrated database; `change` runs (as the owner) before it is read.
    static func catalog(change: String? = nil) async throws -> Catalog {
        let url = try await TestDatabase.makeDatabase(prefix: "citus")
        let service = try await LedgerDatabase.open(connectionString: url, poolSize: 1, migrations: try SchemaLocation.migrations())
        await service.shutdown()
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1)  // the owner
        defer { Task { await pool.shutdown() } }
        if let change { try await pool.withConnection { try $0.execute(change) } }
        let tables = try await pool.query(
            """
            SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'ledger' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
            """
        ).map { try $0.decode(String.self, at: 0) }
        let indexes = try await pool.query(
            """
            SELECT t.relname, i.relname,
                   array_to_string(array(SELECT coalesce(a.attname, '<expression>')
                                         FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
                                         LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
                                         ORDER BY k.n), ',')
            FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
            JOIN pg_namespace n ON n.oid = t.relnamespace
            WHERE n.nspname = 'ledger' AND x.indisunique
            """
        ).map {
            (
                try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1),
                try $0.decode(String.self, at: 2).split(separator: ",").map(String.init)
            )
        }
        let keys = try await pool.query(
            """
            SELECT t.relname, c.conname,
                   array_to_string(array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
                                         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n), ','),
                   r.relname
            FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
            JOIN pg_namespace n ON n.oid = t.relnamespace
            WHERE n.nspname = 'ledger' AND c.contype = 'f'
            """
        ).map {
            (
                try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1),
                try $0.decode(String.self, at: 2).split(separator: ",").map(String.init), try $0.decode(String.self, at: 3)
            )
        }
        return Catalog(tables: Set(tables), uniqueIndexes: indexes, foreignKeys: keys)
    }

    /// What keeps the schema from being distributed as `distribute.sql` says; empty when it can be.
    static func violations(_ placements: [(table: String, placement: Placement)], _ catalog: Catalog) -> [String] {
        var found: [String] = []
        let placed = Dictionary(placements.map { ($0.table, $0.placement) }, uniquingKeysWith: { first, _ in first })
        if placements.count != placed.count { found.append("a table is named twice in distribute.sql") }
        let missing = catalog.tables.subtracting(placed.keys).sorted(), unknown = Set(placed.keys).subtracting(catalog.tables).sorted()
        if !missing.isEmpty || !unknown.isEmpty {
            found.append("distribute.sql must name every table of the schema: missing \(missing), unknown \(unknown)")
        }
        for index in catalog.uniqueIndexes where placed[index.table] == .distributed && index.columns.first != "app_id" {
            found.append("unique index \(index.index) of \(index.table) is \(index.columns): app_id must come first")
        }
        let order = Dictionary(placements.enumerated().map { ($0.element.table, $0.offset) }, uniquingKeysWith: { first, _ in first })
        for key in catalog.foreignKeys {
            switch (placed[key.table], placed[key.referenced]) {
            case (.distributed, .distributed):
                if key.columns.first != "app_id" { found.append("foreign key \(key.name) of \(key.table) is \(key.columns): app_id must come first") }
            case (.distributed, .reference), (.reference, .reference), (.local, .reference), (.local, .local):
                break
            default:
                found.append(
                    "foreign key \(key.name): \(key.table) (\(placed[key.table].map { "\($0)" } ?? "unplaced")) may not reference "
                        + "\(key.referenced) (\(placed[key.referenced].map { "\($0)" } ?? "unplaced"))")
            }
            if key.table != key.referenced, (order[key.referenced] ?? .max) > (order[key.table] ?? .min) {
                found.append("\(key.table) is named before \(key.referenced), which it references")
            }
        }
        return found
    }

    @Test func everyTenantTableIsDistributableByAppID() async throws {
        let placements = try Self.placements()
        #expect(placements.filter { $0.placement == .distributed }.map(\.table).contains("events"))
        let found = Self.violations(placements, try await Self.catalog())
        #expect(found.isEmpty, "\(found)")
    }

    /// The check finds what it looks for: a unique key or a foreign key of a tenant table without the tenant first, a
    /// table that distribute.sql does not name.
    @Test func aKeyWithoutTheTenantFirstOrAnUnnamedTableIsFound() async throws {
        let placements = try Self.placements()
        let catalog = try await Self.catalog(
            change: """
                CREATE UNIQUE INDEX events_by_key_alone ON ledger.events (idempotency_key, app_id);
                CREATE UNIQUE INDEX subscriptions_by_id ON ledger.subscriptions (original_transaction_id);
                ALTER TABLE ledger.paying_users ADD CONSTRAINT paying_users_subscription
                    FOREIGN KEY (original_transaction_id, app_id) REFERENCES ledger.subscriptions (original_transaction_id, app_id);
                CREATE TABLE ledger.notes (app_id text, note text);
                """)
        let found = Self.violations(placements, catalog)
        #expect(found.contains { $0.contains("events_by_key_alone") })
        #expect(found.contains { $0.contains("subscriptions_by_id") })
        #expect(found.contains { $0.contains("paying_users_subscription") })
        #expect(found.contains { $0.contains("missing [\"notes\"]") })
        #expect(found.count == 4, "\(found)")
    }
}
