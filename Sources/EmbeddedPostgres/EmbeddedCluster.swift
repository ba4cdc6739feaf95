import Foundation
import Glibc
import Logging
import PostgresClient

/// A private PostgreSQL cluster under a data folder: created on first use, started on a free loopback port,
/// stopped on request. The folder holds `pgdata/` (the cluster, owned by the server user) and
/// `superuser-password` (mode 0600, owned by whoever runs the ledger).
///
/// The cluster listens on 127.0.0.1 only, with password (SCRAM) authentication, and by default no Unix socket
/// (socket paths are limited to 107 bytes, which deep data folders exceed).
public final class EmbeddedCluster: Sendable {
    public struct Options: Sendable {
        /// Turns off fsync and full-page writes: for throwaway test clusters only.
        public var unsafeFastWrites: Bool
        public var maxConnections: Int
        /// Also listen on a Unix socket in this folder (its path must stay under 107 bytes).
        public var unixSocketDirectory: String?
        /// Listen on this port (nil: a free one, chosen at each start). A fixed port lets a cluster be stopped and
        /// started again under its clients' feet, as in an outage.
        public var port: Int?
        public init(unsafeFastWrites: Bool = false, maxConnections: Int = 100, unixSocketDirectory: String? = nil, port: Int? = nil) {
            self.unsafeFastWrites = unsafeFastWrites
            self.maxConnections = maxConnections
            self.unixSocketDirectory = unixSocketDirectory
            self.port = port
        }
    }

    /// A running cluster: how to connect, and whether this process started it (and so should stop it).
    public struct Running: Sendable {
        public let host: String
        public let port: Int
        public let superuser: String
        public let password: String
        public let startedHere: Bool

        /// A libpq keyword string for `database`.
        public func connectionString(database: String) -> String {
            "host=\(host) port=\(port) user=\(superuser) password=\(password) dbname=\(database)"
        }
    }

    public static let superuser = "ledger"
    public let directory: String
    public let installation: PostgresInstallation
    let options: Options
    let logger: Logger

    public init(
        directory: String, installation: PostgresInstallation, options: Options = Options(),
        logger: Logger = Logger(label: "ledger.embedded-postgres")
    ) {
        self.directory = URL(fileURLWithPath: directory).standardizedFileURL.path
        self.installation = installation
        self.options = options
        self.logger = logger
    }

    var dataPath: String { directory + "/pgdata" }
    var passwordPath: String { directory + "/superuser-password" }
    var logPath: String { dataPath + "/server.log" }

    /// The default data folder: `LEDGER_DATA_DIR`, else `/var/lib/subscription-ledger` for root (whose home the
    /// `postgres` user cannot enter), else `$XDG_DATA_HOME/subscription-ledger` or `~/.local/share/subscription-ledger`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["LEDGER_DATA_DIR"], !explicit.isEmpty { return explicit }
        if getuid() == 0 { return "/var/lib/subscription-ledger" }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/subscription-ledger" }
        return (environment["HOME"] ?? NSTemporaryDirectory()) + "/.local/share/subscription-ledger"
    }

    /// Creates the cluster if the folder has none, then starts it unless it is already running.
    public func start() throws -> Running {
        let user = try ServerUser.current()
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: user.runAsPrefix == nil ? 0o700 : 0o711])
        guard user.canReach(directory) else { throw EmbeddedPostgresError.dataDirectoryNotReachable(path: directory, user: user.name) }
        let password = try initializeIfNeeded(user: user)

        let status = try ProcessRunner.run(user.command([installation.program("pg_ctl"), "status", "-D", dataPath]), workingDirectory: directory)
        if status.status == 0, let port = runningPort() {
            logger.info("reusing the running embedded PostgreSQL", metadata: ["port": "\(port)", "data": "\(dataPath)"])
            return Running(host: "127.0.0.1", port: port, superuser: Self.superuser, password: password, startedHere: false)
        }
        let port = try options.port ?? Self.freeLoopbackPort()
        var settings = [
            "-p \(port)", "-c listen_addresses=127.0.0.1", "-c unix_socket_directories='\(options.unixSocketDirectory ?? "")'",
            "-c max_connections=\(options.maxConnections)"
        ]
        if options.unsafeFastWrites {
            settings += ["-c fsync=off", "-c full_page_writes=off", "-c synchronous_commit=off"]
        }
        try ProcessRunner.check(
            workingDirectory: directory,
            user.command([
                installation.program("pg_ctl"), "start", "-D", dataPath, "-l", logPath,
                "-w", "-t", "60", "-o", settings.joined(separator: " ")
            ]))
        logger.info("started embedded PostgreSQL", metadata: ["port": "\(port)", "data": "\(dataPath)"])
        return Running(host: "127.0.0.1", port: port, superuser: Self.superuser, password: password, startedHere: true)
    }

    /// Makes this folder a streaming replica of `primary` unless it already holds a cluster: a base backup taken over
    /// the replication protocol (`pg_basebackup -R`, which also writes `standby.signal` and `primary_conninfo`). `start()`
    /// then runs it as a hot standby that follows the primary. Give it `maxConnections` of at least the primary's.
    public func createReplica(of primary: Running) throws {
        let user = try ServerUser.current()
        let manager = FileManager.default
        try manager.createDirectory(
            atPath: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: user.runAsPrefix == nil ? 0o700 : 0o711])
        guard !manager.fileExists(atPath: dataPath + "/PG_VERSION") else { return }
        try manager.createDirectory(atPath: dataPath, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try user.take(dataPath)
        try ProcessRunner.check(
            workingDirectory: directory,
            user.command(
                [
                    installation.program("pg_basebackup"), "-D", dataPath, "-d", primary.connectionString(database: "postgres"),
                    "-X", "stream", "-R", "--checkpoint=fast"
                ] + (options.unsafeFastWrites ? ["--no-sync"] : [])))
        guard manager.createFile(atPath: passwordPath, contents: Data(primary.password.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw EmbeddedPostgresError.corruptDataDirectory(path: directory, reason: "cannot write \(passwordPath)")
        }
        logger.info("created a streaming replica", metadata: ["data": "\(dataPath)", "primary port": "\(primary.port)"])
    }

    /// Stops the cluster (fast shutdown: open transactions roll back, committed data is safe).
    public func stop() throws {
        let user = try ServerUser.current()
        try ProcessRunner.check(
            workingDirectory: directory,
            user.command([
                installation.program("pg_ctl"), "stop", "-D", dataPath, "-m", "fast", "-w",
                "-t", "60"
            ]))
        logger.info("stopped embedded PostgreSQL", metadata: ["data": "\(dataPath)"])
    }

    /// Stops the cluster once its clients have left (smart shutdown), cutting off only those still connected after
    /// `timeoutSeconds` (fast). For the process that started it, at exit: its connections close as its services
    /// stop, some a moment after the pool's (a LISTEN connection's thread notices within its poll interval), and a
    /// fast shutdown would cut those off, each printing a bare "FATAL: terminating connection due to administrator
    /// command" on stderr.
    public func stopAfterClientsLeave(timeoutSeconds: Int = 10) throws {
        let user = try ServerUser.current()
        let smart = try ProcessRunner.run(
            user.command([
                installation.program("pg_ctl"), "stop", "-D", dataPath, "-m", "smart", "-w",
                "-t", "\(timeoutSeconds)"
            ]), workingDirectory: directory)
        guard smart.status != 0 else {
            logger.info("stopped embedded PostgreSQL", metadata: ["data": "\(dataPath)"])
            return
        }
        logger.warning(
            "clients of the embedded PostgreSQL did not disconnect; stopping it anyway",
            metadata: ["timeout": "\(timeoutSeconds)s", "data": "\(dataPath)"])
        try stop()
    }

    /// Runs initdb on first use; returns the superuser password.
    private func initializeIfNeeded(user: ServerUser) throws -> String {
        let manager = FileManager.default
        if manager.fileExists(atPath: dataPath + "/PG_VERSION") {
            guard let password = try? String(contentsOfFile: passwordPath, encoding: .utf8) else {
                throw EmbeddedPostgresError.corruptDataDirectory(path: directory, reason: "\(passwordPath) is missing or unreadable")
            }
            return password.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let password = Self.randomPassword()
        try manager.createDirectory(atPath: dataPath, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try user.take(dataPath)
        // initdb reads the password from a file the server user owns; it is removed right after.
        let passwordFile = dataPath + ".pwfile"
        guard manager.createFile(atPath: passwordFile, contents: Data(password.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw EmbeddedPostgresError.corruptDataDirectory(path: directory, reason: "cannot write \(passwordFile)")
        }
        defer { try? manager.removeItem(atPath: passwordFile) }
        try user.take(passwordFile)
        try ProcessRunner.check(
            workingDirectory: directory,
            user.command(
                [
                    installation.program("initdb"), "-D", dataPath, "-U", Self.superuser, "--pwfile=\(passwordFile)",
                    "--auth=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-instructions"
                ] + (options.unsafeFastWrites ? ["--no-sync"] : [])))
        guard manager.createFile(atPath: passwordPath, contents: Data(password.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw EmbeddedPostgresError.corruptDataDirectory(path: directory, reason: "cannot write \(passwordPath)")
        }
        logger.info("created embedded PostgreSQL cluster", metadata: ["data": "\(dataPath)"])
        return password
    }

    /// The port of a running server, from the fourth line of `postmaster.pid`.
    private func runningPort() -> Int? {
        guard let text = try? String(contentsOfFile: dataPath + "/postmaster.pid", encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.count > 3 ? Int(lines[3].trimmingCharacters(in: .whitespaces)) : nil
    }

    static func randomPassword() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Asks the kernel for a free port on 127.0.0.1.
    public static func freeLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else {
            throw EmbeddedPostgresError.commandFailed(
                command: "socket", status: errno,
                output: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else { throw EmbeddedPostgresError.commandFailed(command: "bind", status: errno, output: String(cString: strerror(errno))) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

extension EmbeddedCluster.Running {
    /// Connects as the superuser and creates `database` unless it exists.
    public func ensureDatabase(_ database: String) throws {
        let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: connectionString(database: "postgres")))
        let exists = try connection.query("SELECT 1 FROM pg_database WHERE datname = \(database)")
        if exists.isEmpty {
            try connection.execute("CREATE DATABASE \(PostgresIdentifier.quote(database))")
        }
    }
}
