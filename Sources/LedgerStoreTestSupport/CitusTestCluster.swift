import Foundation
import LedgerStore
import PostgresClient

/// Tests on a real Citus: with a cluster from `Deploy/citus/up.sh DIR` and `LEDGER_TEST_CITUS=DIR`, the databases
/// of the API harness and the store fixture are made on it (Deploy/SCALE-OUT.md, "Proven on Citus"). Each is created
/// on the coordinator and every worker with the extension, the workers added, then migrated and distributed by
/// `Deploy/citus/distribute.sql`, as an operator does.
package enum CitusTestCluster {
    /// The cluster's folder (`up.sh`'s), or nil to test on the ordinary PostgreSQL.
    package static var directory: String? {
        guard let dir = ProcessInfo.processInfo.environment["LEDGER_TEST_CITUS"], !dir.isEmpty else { return nil }
        return dir
    }

    /// Whether this run's databases are on Citus; tests of a single node's mechanics (its plans, a superuser's
    /// session-wide switches) are left out then, with the reason.
    package static var isActive: Bool { directory != nil }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Deploy/citus/distribute.sql")

    /// The coordinator's port, then the workers', from `citus.env`.
    static func ports(in directory: String) throws -> [Int] {
        let env = try String(contentsOfFile: directory + "/citus.env", encoding: .utf8)
        guard let line = env.split(separator: "\n").first(where: { $0.hasPrefix("CITUS_NODE_PORTS=") }) else {
            throw CitusTestClusterError("no CITUS_NODE_PORTS in \(directory)/citus.env: start the cluster with Deploy/citus/up.sh \(directory)")
        }
        return line.dropFirst("CITUS_NODE_PORTS=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")).split(separator: " ").compactMap {
            Int($0)
        }
    }

    static func url(port: Int, database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)" }

    /// Drops the databases an earlier test run left on the cluster (each keeps a Citus maintenance worker), once per
    /// process, before its first database.
    private static let sweep: Result<Void, any Error> = Result {
        guard let directory else { return }
        let nodes = try ports(in: directory)
        // The nodes of citus.env, and the worker `add-worker.sh` starts beside them, when it runs.
        for port in nodes + [nodes[0] + 3] {
            guard let connection = try? PostgresConnection.connect(PostgresConfiguration(connectionString: url(port: port, database: "postgres")))
            else { continue }
            let names = try connection.query("SELECT datname FROM pg_database WHERE datname ~ '^[a-z0-9_]+_[0-9a-f]{32}$'")
                .map { try $0.decode(String.self, at: 0) }
            for name in names { try connection.execute("DROP DATABASE \(name) WITH (FORCE)") }
        }
    }

    /// A fresh database on the cluster in `directory`, migrated and distributed; its coordinator's connection string.
    /// A copy, on every node, of one such database made once per process: migrating and distributing each would take
    /// tens of seconds.
    package static func makeDistributedDatabase(prefix: String, in directory: String) async throws -> String {
        try sweep.get()
        return try await Template.shared.copy(prefix: prefix, in: directory)
    }

    /// The process's template database, and the copies made of it one at a time (PostgreSQL copies a database only
    /// while nobody is connected to it, so the copier closes the template's sessions, Citus' maintenance worker's
    /// among them, before each).
    actor Template {
        static let shared = Template()
        private var name: String?

        func copy(prefix: String, in directory: String) throws -> String {
            let ports = try CitusTestCluster.ports(in: directory)
            let template = try name ?? CitusTestCluster.makeTemplate(ports: ports)
            name = template
            let copy = "\(prefix)_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
            for port in ports {
                let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: url(port: port, database: "postgres")))
                try connection.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(template)'")
                try connection.execute("CREATE DATABASE \(copy) TEMPLATE \(template)")
                // Citus records its database among the objects it distributed, by OID: the copy's is its own.
                try PostgresConnection.connect(PostgresConfiguration(connectionString: url(port: port, database: copy))).execute(
                    """
                    UPDATE pg_catalog.pg_dist_object SET objid = (SELECT oid FROM pg_database WHERE datname = current_database())
                    WHERE classid = 'pg_database'::regclass
                    """)
            }
            return url(port: ports[0], database: copy)
        }
    }

    /// A database on every node with the extension and the workers added, migrated and distributed.
    static func makeTemplate(ports: [Int]) throws -> String {
        guard let coordinator = ports.first, ports.count > 1 else { throw CitusTestClusterError("citus.env names no worker") }
        let name = "template_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        for port in ports {
            try PostgresConnection.connect(PostgresConfiguration(connectionString: url(port: port, database: "postgres")))
                .execute("CREATE DATABASE \(name)")
            try PostgresConnection.connect(PostgresConfiguration(connectionString: url(port: port, database: name)))
                .execute("SET client_min_messages = warning; CREATE EXTENSION citus")
        }
        let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: url(port: coordinator, database: name)))
        try connection.execute("SELECT citus_set_coordinator_host('127.0.0.1', \(coordinator))")
        for worker in ports.dropFirst() { try connection.execute("SELECT citus_add_node('127.0.0.1', \(worker))") }
        try SchemaMigrator(migrations: try SchemaLocation.migrations()).migrate(on: connection)
        try connection.execute("ALTER ROLE \(LedgerDatabase.serviceRole) LOGIN")
        // Statement by statement, each in its own transaction, as `psql -f` runs it.
        let text = try String(contentsOf: script, encoding: .utf8)
        let statements = text.split(separator: "\n").filter { !$0.hasPrefix("--") }.joined(separator: "\n").components(separatedBy: ";\n")
        for statement in statements where !statement.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            try connection.execute(statement)
        }
        return name
    }
}

package struct CitusTestClusterError: Error, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
