import EmbeddedPostgres
import Foundation
import Glibc
import PostgresClient
import Synchronization

/// A real PostgreSQL for tests, started by the test run itself: `DATABASE_URL` when set (it must allow
/// CREATE DATABASE), otherwise one private cluster per test process in a temporary folder, stopped and removed
/// when the process exits. Every test gets a database of its own, so tests run in parallel without interfering.
public enum TestDatabase {
    /// The superuser connection string of a fresh, empty database (no migrations applied).
    public static func makeDatabase(prefix: String = "test", on role: TestServer.Role = .shared) async throws -> String {
        try await makeDatabase(prefix: prefix, template: nil, on: role)
    }

    /// The superuser connection string of a fresh database that starts as an exact copy of the one `makeDatabase`
    /// returned as `source` (PostgreSQL's `CREATE DATABASE … TEMPLATE`: nobody may be connected to `source`).
    public static func copyDatabase(_ source: String, prefix: String = "copy", on role: TestServer.Role = .shared) async throws -> String {
        guard let name = databaseName(in: source) else { throw TestDatabaseError.noDatabaseName(source) }
        return try await makeDatabase(prefix: prefix, template: name, on: role)
    }

    /// The `dbname` of a keyword connection string, or the path of a `postgres://` URL.
    static func databaseName(in connectionString: String) -> String? {
        if let url = URLComponents(string: connectionString), url.scheme?.hasPrefix("postgres") == true {
            return url.path.isEmpty ? nil : String(url.path.dropFirst())
        }
        return connectionString.split(separator: " ").last { $0.hasPrefix("dbname=") }.map { String($0.dropFirst("dbname=".count)) }
    }

    private static func makeDatabase(prefix: String, template: String?, on role: TestServer.Role) async throws -> String {
        let server = try await TestServer.of(role).start()
        let name = "\(prefix)_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        let copy = template.map { " TEMPLATE \(PostgresIdentifier.quote($0))" } ?? ""
        try await server.withAdminConnection { connection in
            try connection.execute("CREATE DATABASE \(PostgresIdentifier.quote(name))\(copy)")
        }
        return server.connectionString(database: name)
    }

    /// Connection details of the server itself, for tests that manage databases or clusters themselves.
    public static func server() async throws -> TestServer.Info { try await TestServer.shared.start() }

    /// Waits until the server-wide commit horizon (`pg_snapshot_xmin`) has passed every event of the database at
    /// `connectionString`. Digests and commit-safe readers see only events below it, and another test's open
    /// transaction (in any database of the shared server) can hold it back for a while. Throws `horizonNotReached`
    /// after `timeout` rather than letting the caller go on to read a log that is not final yet.
    public static func waitForHorizon(_ connectionString: String, timeout: Duration = .seconds(60)) async throws {
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: connectionString), size: 1)
        defer { Task { await pool.shutdown() } }
        let deadline = ContinuousClock.now + timeout
        while true {
            let row = try await pool.query(
                """
                SELECT pg_snapshot_xmin(pg_current_snapshot()), (SELECT coalesce(max(transaction_id), '0'::xid8) FROM ledger.events)
                """
            ).first!  // a SELECT without FROM: always one row
            let (horizon, newest) = (try row.decode(UInt64.self, at: 0), try row.decode(UInt64.self, at: 1))
            if horizon > newest { return }
            guard ContinuousClock.now < deadline else {
                throw TestDatabaseError.horizonNotReached(newestEventTransaction: newest, horizon: horizon, waited: timeout)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

public enum TestDatabaseError: Error, Equatable, CustomStringConvertible {
    case noDatabaseName(String)
    /// The commit horizon stayed at or below the transaction of the newest event: a transaction still open on the
    /// server (any database) is older than it.
    case horizonNotReached(newestEventTransaction: UInt64, horizon: UInt64, waited: Duration)

    public var description: String {
        switch self {
        case .noDatabaseName(let connectionString): "no database name in \(connectionString)"
        case .horizonNotReached(let newest, let horizon, let waited):
            "the commit horizon (pg_snapshot_xmin) did not pass transaction \(newest) of the newest event within \(waited): it stayed at "
                + "\(horizon), held back by an older transaction still open on the server"
        }
    }
}

/// Starts the test server once per process.
public actor TestServer {
    public struct Info: Sendable {
        /// libpq keyword string without `dbname`, or a URL, for the admin database.
        let adminConnectionString: String
        let isURL: Bool
        /// Set when the test server is the embedded one, which also listens on a Unix socket there.
        public var unixSocketDirectory: String? = nil

        public func connectionString(database: String) -> String {
            if isURL {
                guard var components = URLComponents(string: adminConnectionString) else { return adminConnectionString }
                components.path = "/" + database
                return components.string ?? adminConnectionString
            }
            return adminConnectionString + " dbname=\(database)"
        }

        /// On a thread of its own: libpq blocks.
        func withAdminConnection(_ body: @escaping @Sendable (PostgresConnection) throws -> Void) async throws {
            let connectionString = isURL ? adminConnectionString : adminConnectionString + " dbname=postgres"
            try await Blocking.run { try body(try PostgresConnection.connect(PostgresConfiguration(connectionString: connectionString))) }
        }
    }

    /// Which of the run's servers a test uses. PostgreSQL's commit horizon (`pg_snapshot_xmin`) is server-wide: a
    /// transaction open in any database holds back every other database's projections, read-your-writes waits and
    /// digests. So the tests that hold it on purpose, or for long, get clusters of their own (with `DATABASE_URL`
    /// all are that server):
    /// - `.faults`: the reliability suite's crash and tamper tests (killed servers, open batches, database copies);
    /// - `.horizonHolder`: a test that keeps a transaction open on purpose;
    /// - `.rebuilds`: a rebuild killed again and again, whose snapshot stays open while it folds a large log (on
    ///   a starved CI machine for longer than the fault tests' and the late-commit tests' waits of a minute);
    /// - `.lateCommits`: the randomized rebuild histories, whose late commits and rebuilds hold it in turn;
    /// - `.bulkLoads`: tests that write tens of thousands of events at once (the invoice figures): their inserts and
    ///   projection batches each held an xid for 6–10 s on a starved CI machine, and a read-your-writes test of the
    ///   shared server waited past its client's timeout behind them.
    public enum Role: Sendable, CaseIterable { case shared, faults, horizonHolder, rebuilds, lateCommits, bulkLoads }

    static let servers: [Role: TestServer] = Dictionary(uniqueKeysWithValues: Role.allCases.map { ($0, TestServer()) })
    static var shared: TestServer { of(.shared) }
    static func of(_ role: Role) -> TestServer { servers[role]! }  // every case has one
    private var info: Info?
    private var starting: Task<Info, any Error>?

    /// Starts the cluster once (concurrent callers share the one start). initdb and pg_ctl block: they run on a
    /// thread of their own, never on the cooperative pool that every test and in-process server shares.
    func start() async throws -> Info {
        if let info { return info }
        if let starting { return try await starting.value }
        let task = Task { try await Blocking.run { try Self.startCluster() } }
        starting = task
        let info = try await task.value
        self.info = info
        return info
    }

    /// libpq's `connect_timeout` for the embedded test clusters' connections (the default is 10 s).
    static let connectTimeoutSeconds = 60

    private static func startCluster() throws -> Info {
        if let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty {
            return Info(adminConnectionString: url, isURL: url.contains("://"))
        }
        _ = TestScratch.directory  // sweeps what killed runs left before this one adds a cluster
        let directory = NSTemporaryDirectory() + "ledger-tests-\(getpid())-\(UUID().uuidString.prefix(8))"
        let cluster = EmbeddedCluster(
            directory: directory, installation: try PostgresInstallation.locate(),
            // Every suite's pools share the cluster, and a rebuild opens one writer per read model table besides its
            // reader and control connection: 300 ran out once a fifth table was added.
            options: .init(unsafeFastWrites: true, maxConnections: 400, unixSocketDirectory: directory + "/pgdata"))
        let running = try cluster.start()
        TestClusterRegistry.register(cluster)
        // connect_timeout: at the suite's start every suite opens its pools at once while the run's other clusters
        // run initdb, on two cores; backends then took more than libpq's 10 s to start and a hundred tests failed
        // with "timeout expired" in their first seconds. A slow connection there is load, not a fault under test.
        let info = Info(
            adminConnectionString: "host=\(running.host) port=\(running.port) user=\(running.superuser) password=\(running.password)"
                + " connect_timeout=\(Self.connectTimeoutSeconds)",
            isURL: false, unixSocketDirectory: directory + "/pgdata")
        try prepareServiceRole(info)
        return info
    }

    /// Migration 001 creates the role `ledger_service` and grants it to the migrating user. On a fresh cluster, two
    /// databases migrating at the same moment both find the grant missing and both insert it: one fails with a
    /// unique violation in `pg_auth_members` (seen when several tests migrate their first databases at once). Done
    /// here once, before any test migrates, every migration finds the role and the grant in place.
    static func prepareServiceRole(_ info: Info) throws {
        let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: info.adminConnectionString + " dbname=postgres"))
        try connection.execute(
            """
            DO $$
            BEGIN
                IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
                    CREATE ROLE ledger_service NOLOGIN;
                END IF;
                EXECUTE format('GRANT ledger_service TO %I', current_user);
            END
            $$;
            """)
    }
}

/// Stops the per-process test clusters when the test process exits.
enum TestClusterRegistry {
    static let clusters = Mutex<[EmbeddedCluster]>([])

    static func register(_ value: EmbeddedCluster) {
        let first = clusters.withLock { clusters in
            clusters.append(value)
            return clusters.count == 1
        }
        guard first else { return }
        atexit {
            for cluster in TestClusterRegistry.clusters.withLock({ $0 }) {
                try? cluster.stop()
                try? FileManager.default.removeItem(atPath: cluster.directory)
            }
        }
    }
}
