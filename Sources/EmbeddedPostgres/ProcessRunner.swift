import CProcessSpawn
import Foundation
import Glibc

/// Runs a program to completion and captures its output (stdout and stderr together).
///
/// Uses `posix_spawn` and `waitpid` directly: Foundation's `Process.waitUntilExit` was seen to hang on Linux after
/// the child had exited, when called from a Swift concurrency thread. Blocking: call it from a thread of its own
/// (`runOnThread`) when the caller is async.
public enum ProcessRunner {
    public struct Result: Sendable {
        public var status: Int32
        public var output: String
    }

    /// `searchPath` resolves the program through PATH (via /usr/bin/env).
    @discardableResult
    public static func run(_ arguments: [String], searchPath: Bool = false, workingDirectory: String? = nil) throws -> Result {
        // The server user may not be able to enter the caller's directory (root's home); PostgreSQL tools need
        // one they can reach, so `env -C` changes to it first.
        let argv = (workingDirectory.map { ["/usr/bin/env", "-C", $0] } ?? (searchPath ? ["/usr/bin/env"] : [])) + arguments
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw failure("pipe", errno) }
        // Close-on-exec: only the dup2'd copies (stdout, stderr) reach the child, so the read below sees EOF as
        // soon as the child (and anything it starts with other output, like the postmaster) lets go of them.
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        // Nothing else of this process reaches the child: the PostgreSQL server that pg_ctl starts lives on, and
        // would keep an inherited listening socket (a server's, a test receiver's) open after its owner closed it.
        _ = c_process_spawn_close_from(&actions, 3)

        var pid: pid_t = 0
        let spawned = withCStringArray(argv) { pointers in
            withPlainSignals { attributes in posix_spawn(&pid, argv[0], &actions, attributes, pointers, environ) }
        }
        close(fds[1])
        guard spawned == 0 else {
            close(fds[0])
            throw failure(argv[0], spawned)
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if count > 0 { output += buffer[0..<count]; continue }
            if count < 0 && errno == EINTR { continue }
            break
        }
        close(fds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(status: exitStatus, output: String(decoding: output, as: UTF8.self))
    }

    /// Spawn attributes that give the child an empty signal mask and default handlers. A child inherits the
    /// spawning thread's mask, and Swift's runtime threads block signals: pgbench, whose `-T` runs on SIGALRM,
    /// never stopped when started from one of them.
    public static func withPlainSignals<T>(_ body: (UnsafePointer<posix_spawnattr_t>) -> T) -> T {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGALRM, SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        return withUnsafePointer(to: &attributes) { body($0) }
    }

    /// Runs and throws `commandFailed` on a non-zero exit.
    @discardableResult
    static func check(workingDirectory: String? = nil, _ arguments: [String]) throws -> String {
        let result = try run(arguments, workingDirectory: workingDirectory)
        guard result.status == 0 else {
            throw EmbeddedPostgresError.commandFailed(command: arguments.joined(separator: " "), status: result.status, output: result.output)
        }
        return result.output
    }

    private static func failure(_ what: String, _ code: Int32) -> EmbeddedPostgresError {
        .commandFailed(command: what, status: code, output: String(cString: strerror(code)))
    }

    private static func withCStringArray<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }

    /// `run` on a thread of its own, so a long child does not hold one of Swift concurrency's few threads.
    public static func runOnThread(_ arguments: [String], workingDirectory: String? = nil) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Swift.Result { try run(arguments, workingDirectory: workingDirectory) })
            }
        }
    }
}
