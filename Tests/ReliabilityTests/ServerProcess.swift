import AppStoreSamples
import EmbeddedPostgres
import Foundation
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
        port = try EmbeddedCluster.freeLoopbackPort()
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

enum ServerProcessError: Error, CustomStringConvertible {
    case exited(status: Int32, log: String)
    case notReady(log: String)

    var description: String {
        switch self {
        case .exited(let status, let log): "ledger serve exited with status \(status):\n\(log)"
        case .notReady(let log): "ledger serve did not become ready:\n\(log)"
        }
    }
}
