import AppStoreSamples
import EmbeddedPostgres
import Foundation
import LedgerServerTestSupport
import Glibc
import LedgerStore
import PostgresTestSupport
import Synchronization

/// A real `ledger serve` process on a fixed loopback port, which the tests start, SIGKILL and start again.
/// Its log goes to a file (a pipe nobody reads would block it); `logTail` shows the end when something fails.
actor ServerProcess {
    /// How the binary is started: the one the build made, by its path; or by name from PATH (`binDirectory` first in
    /// PATH) in `workingDirectory`, as an operator runs an installed `ledger`.
    enum Launch: Sendable {
        case built
        case byName(binDirectory: String, workingDirectory: String)
    }

    nonisolated let port: Int
    let launch: Launch
    let arguments: [String]
    let environment: [String: String]
    let logPath: String
    private var process: Process?
    private(set) var starts = 0
    /// The running child's pid, for `killNow` from a `defer` (which cannot await).
    private nonisolated let runningPID = Mutex<Int32?>(nil)

    /// The running server's process id (nil while stopped).
    nonisolated var pid: Int32? { runningPID.withLock { $0 } }

    nonisolated var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The fault tests' common start: a fresh database, a server trusting `signer`'s roots, already listening.
    static func started(
        databasePrefix: String, signer: AppStoreTestSigner, extraArguments: [String] = [],
        environment: [String: String] = [:]
    ) async throws -> (server: ServerProcess, databaseURL: String) {
        let databaseURL = try await TestDatabase.makeDatabase(prefix: databasePrefix, on: .faults)
        let server = try ServerProcess(
            databaseURL: databaseURL, rootFiles: try RootFiles.write(signer), adminToken: LedgerTenant.adminToken,
            extraArguments: extraArguments, extraEnvironment: environment)
        try await server.start()
        return (server, databaseURL)
    }

    /// `databaseURL` nil: the embedded PostgreSQL (pass `--data-dir` in `extraArguments`).
    init(
        databaseURL: String?, rootFiles: [String], adminToken: String, extraArguments: [String] = [], launch: Launch = .built,
        extraEnvironment: [String: String] = [:]
    ) throws {
        port = try RestartablePort.pick()
        self.launch = launch
        arguments = ["serve", "--port", "\(port)", "--pool-size", "4"] + rootFiles.flatMap { ["--apple-root", $0] } + extraArguments
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = databaseURL
        if case .byName(let binDirectory, _) = launch {
            environment["PATH"] = binDirectory + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            environment["LEDGER_SCHEMA_DIR"] = nil
        }
        environment["LEDGER_ADMIN_TOKEN"] = adminToken
        environment["LEDGER_LOG_LEVEL"] = environment["LEDGER_LOG_LEVEL"] ?? "warning"
        // One master key for every test server, so that a test can read the identities they sealed.
        environment["LEDGER_MASTER_KEY_FILE"] = environment["LEDGER_MASTER_KEY_FILE"] ?? TestMasterKey.file
        environment.merge(extraEnvironment) { $1 }
        self.environment = environment
        logPath = TestScratch.path("serve-\(port).log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    }

    /// Spawns the server and waits (polling `/ready`, up to `timeout`) until it answers 200.
    func start(timeout: Duration = .seconds(60)) async throws {
        precondition(process?.isRunning != true, "the server is already running")
        let process = Process()
        switch launch {
        case .built:
            process.executableURL = LedgerBinary.url
            process.arguments = arguments
        case .byName(_, let workingDirectory):
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")  // execvp: found through PATH, argv[0] "ledger"
            process.arguments = ["ledger"] + arguments
            process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
        }
        process.environment = environment
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        self.process = process
        runningPID.withLock { $0 = process.processIdentifier }
        starts += 1
        let client = HTTPClient(base: baseURL, timeout: 2)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw ServerProcessError.exited(status: process.terminationStatus, log: logTail()) }
            if let answer = try? await client.send("GET", "/ready"), answer.status == 200 { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw ServerProcessError.notReady(log: logTail())
    }

    /// SIGKILL: no graceful shutdown, requests in flight are cut off.
    func kill() async {
        guard let process, process.isRunning else { return }
        await ChildProcess.kill(process)
        runningPID.withLock { $0 = nil }
    }

    /// SIGTERM and wait: the graceful stop. Returns the exit status (nil: it was not running).
    @discardableResult
    func stop() async -> Int32? {
        guard let process, process.isRunning else { return nil }
        let status = await ChildProcess.terminate(process)
        runningPID.withLock { $0 = nil }
        return status
    }

    /// SIGKILL without waiting: cleanup after a failed test.
    nonisolated func killNow() {
        if let pid = runningPID.withLock({ $0 }) { Glibc.kill(pid, SIGKILL) }
    }

    func logTail(_ characters: Int = 4000) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return String(text.suffix(characters))
    }
}

/// A loopback port a server can be killed and started on again. Not an ephemeral one (`bind` to port 0): Linux hands
/// those (32768–60999, `ip_local_port_range`) to every outgoing connection and every other `bind(0)` of the test run,
/// so one could take the port while the server is down between two starts ("Address already in use"). Below that
/// range nothing is handed out; a port is picked free, and never twice by this process.
enum RestartablePort {
    private static let taken = Mutex<Set<Int>>([])

    static func pick() throws -> Int {
        for _ in 0..<500 {
            let candidate = Int.random(in: 20_000..<32_000)
            guard taken.withLock({ $0.insert(candidate).inserted }) else { continue }
            if isFree(candidate) { return candidate }
        }
        throw ServerProcessError.noFreePort
    }

    /// Whether the port can be bound on 127.0.0.1 now.
    static func isFree(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

enum ServerProcessError: Error, CustomStringConvertible {
    case exited(status: Int32, log: String)
    case notReady(log: String)
    case noFreePort

    var description: String {
        switch self {
        case .exited(let status, let log): "ledger serve exited with status \(status):\n\(log)"
        case .notReady(let log): "ledger serve did not become ready:\n\(log)"
        case .noFreePort: "no free loopback port between 20000 and 32000 for a restartable server"
        }
    }
}
