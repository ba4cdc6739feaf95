import EmbeddedPostgres
import Foundation
import Glibc

/// `ledger serve`, as a child process of this binary (`LedgerBenchmarks ledger serve …` runs the real command), so
/// that its memory is its own and measured alone.
final class ServerProcess: Sendable {
    let pid: pid_t
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }
    static let adminToken = "bench-admin-token"

    private init(pid: pid_t, port: Int) {
        self.pid = pid
        self.port = port
    }

    /// `environment` is added to the server's (the tracing figures set `OTEL_*` there).
    static func start(cluster: BenchCluster, appleRoot: String, log: String, environment extra: [String: String] = [:]) async throws -> ServerProcess {
        let port = try EmbeddedCluster.freeLoopbackPort()
        let arguments = ["/proc/self/exe", "ledger", "serve", "--port", "\(port)", "--apple-root", appleRoot, "--pool-size", "8"]
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = cluster.url
        environment["LEDGER_ADMIN_TOKEN"] = adminToken
        environment["LEDGER_LOG_LEVEL"] = "warning"
        // The live and webhook phase delivers to a receiver on loopback.
        environment["LEDGER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES"] = "1"
        environment.merge(extra) { $1 }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let spawned = ProcessRunner.withPlainSignals { posix_spawn(&pid, executable, &actions, $0, argv, envp) }
        guard spawned == 0 else {
            throw ExternalTool.Failed(command: arguments.joined(separator: " "), output: String(cString: strerror(errno)))
        }
        let server = ServerProcess(pid: pid, port: port)
        try await server.waitUntilReady(log: log)
        return server
    }

    /// Polls `/ready` until the server answers (it migrates and connects first; its first start on a data set also
    /// adopts the data set's users, written by id as a log from before pseudonyms would be: docs/erasure.md).
    private func waitUntilReady(log: String) async throws {
        for _ in 0..<6_000 {
            if (try? await ExternalTool.run(["curl", "-sf", "-o", "/dev/null", baseURL + "/ready"])) != nil { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                throw ExternalTool.Failed(command: "ledger serve", output: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ExternalTool.Failed(command: "ledger serve", output: "not ready after 600 s")
    }

    /// Peak resident memory since the last `resetPeak()`, in MiB (`VmHWM`).
    func peakRSSMiB() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes / 1024
    }

    /// CPU time the server has used so far (user and system, all its threads), in seconds (`/proc/PID/stat`).
    func cpuSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let afterName = stat.range(of: ") ", options: .backwards) else { return 0 }
        // Fields after the command name start at field 3 (state); utime and stime are fields 14 and 15.
        let fields = stat[afterName.upperBound...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The server's `/metrics` exposition.
    func metrics() async throws -> String { try await ExternalTool.run(["curl", "-sSf", baseURL + "/metrics"]) }

    /// The sum of `exposition`'s samples of `series` whose labels contain `labels` (e.g. `ledger_status_cache_reads`,
    /// `answer="hit"`).
    static func sum(in exposition: String, _ series: String, labels: String = "") -> Double {
        exposition.split(separator: "\n").reduce(0) { sum, line in
            guard line.hasPrefix(series + "{") || line.hasPrefix(series + " "), labels.isEmpty || line.contains(labels),
                  let value = line.split(separator: " ").last.flatMap({ Double($0) }) else { return sum }
            return sum + value
        }
    }

    /// Starts a new peak-memory window (writing 5 to clear_refs resets VmHWM to the current RSS).
    func resetPeak() { try? "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8) }

    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}
