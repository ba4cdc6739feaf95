/// How to reach PostgreSQL. `connectionString` is anything libpq accepts: a URL
/// (`postgres://user:pass@host:5432/db?sslmode=require`, `postgresql:///db?host=/var/run/postgresql` for a Unix
/// socket) or a keyword string (`host=127.0.0.1 port=5432 dbname=ledger sslrootcert=...`). TLS options
/// (`sslmode`, `sslcert`, `sslkey`, `sslrootcert`, ...) pass through to libpq untouched.
public struct PostgresConfiguration: Sendable {
    public var connectionString: String
    /// Seconds a connection attempt may take before it fails (libpq `connect_timeout`).
    public var connectTimeoutSeconds: Int
    /// How long an unacknowledged write to a dead peer may block before the kernel gives up (`tcp_user_timeout`).
    /// With TCP keepalives this bounds every blocking call on a server that vanished without closing the socket.
    public var networkTimeoutMilliseconds: Int
    public var applicationName: String
    /// Statements run on every new connection, before it is used (for example `SET ROLE ...`).
    public var setupStatements: [String]

    public init(
        connectionString: String,
        connectTimeoutSeconds: Int = 10,
        networkTimeoutMilliseconds: Int = 30_000,
        applicationName: String = "subscription-ledger",
        setupStatements: [String] = []
    ) {
        self.connectionString = connectionString
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.networkTimeoutMilliseconds = networkTimeoutMilliseconds
        self.applicationName = applicationName
        self.setupStatements = setupStatements
    }

    /// libpq keyword/value pairs: our defaults first, the caller's connection string last, because libpq lets
    /// later values win, so anything the caller wrote in the URL overrides a default.
    var keywordValuePairs: [(String, String)] {
        [
            ("connect_timeout", String(connectTimeoutSeconds)),
            ("application_name", applicationName),
            ("keepalives", "1"),
            ("keepalives_idle", "10"),
            ("keepalives_interval", "5"),
            ("keepalives_count", "3"),
            ("tcp_user_timeout", String(networkTimeoutMilliseconds)),
            ("dbname", connectionString)
        ]
    }
}
