import Foundation
import Glibc

/// What a test process that ended without its `atexit` (a crash, a kill) left behind, found by the process id in the
/// folder's name: its scratch folder (`ledger-scratch-PID`), its PostgreSQL clusters (`ledger-tests-PID-…`), the
/// clusters' servers still running, and the `ledger serve` processes it spawned, still polling those clusters. Left
/// alone they held gigabytes of disk and most of a CI machine's CPU for the runs after.
enum AbandonedTestRuns {
    static let prefixes = ["ledger-scratch-", "ledger-tests-"]

    /// The folders in `base` of test processes that no longer run, with the processes still working in them stopped.
    static func sweep(in base: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base) else { return }
        let abandoned = names.compactMap { name -> String? in
            guard let owner = ownerPID(of: name), owner != getpid(), kill(owner, 0) != 0, errno == ESRCH else { return nil }
            return URL(fileURLWithPath: base + "/" + name).standardizedFileURL.path
        }
        guard !abandoned.isEmpty else { return }
        stopProcesses(workingIn: abandoned)
        for folder in abandoned { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// The process id a folder's name carries (`ledger-scratch-PID`, `ledger-tests-PID-SUFFIX`), nil for other names.
    static func ownerPID(of name: String) -> pid_t? {
        guard let prefix = prefixes.first(where: { name.hasPrefix($0) }) else { return nil }
        let digits = name.dropFirst(prefix.count).prefix { $0.isNumber }
        return pid_t(digits)
    }

    /// Stops every process whose working directory or standard output is inside one of `folders`: a PostgreSQL
    /// server (its postmaster works in its data directory) by SIGQUIT to its postmaster, its immediate shutdown, which
    /// ends its backends and frees its shared memory; anything else (a spawned `ledger serve` logs into the scratch
    /// folder) by SIGKILL. Waits up to five seconds for them to end, so the folders are removed after their users.
    static func stopProcesses(workingIn folders: [String]) {
        let inside = { (path: String?) -> Bool in
            guard let path else { return false }
            return folders.contains { path == $0 || path.hasPrefix($0 + "/") }
        }
        var stopped: [pid_t] = []
        for process in runningProcesses() where inside(process.workingDirectory) || inside(process.standardOutput) {
            let postmaster = process.workingDirectory.flatMap(postmasterPID(inDataDirectory:))
            if let postmaster, postmaster != process.pid { continue }  // a backend: its postmaster's shutdown ends it
            if kill(process.pid, postmaster == nil ? SIGKILL : SIGQUIT) == 0 { stopped.append(process.pid) }
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while stopped.contains(where: isRunning) && ContinuousClock.now < deadline {
            usleep(20_000)
        }
    }

    /// Whether `pid` runs: exists and is not a zombie (a killed postmaster's parent is init, which in a container
    /// may never reap it).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 || errno != ESRCH else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[close...].dropFirst(2).first != "Z"  // "pid (name) S ...": the state follows the name
    }

    struct RunningProcess {
        let pid: pid_t
        let workingDirectory: String?
        let standardOutput: String?
    }

    /// Every process this user may inspect, with where it works and where its standard output goes.
    static func runningProcesses() -> [RunningProcess] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry in
            guard let pid = pid_t(entry), pid != getpid() else { return nil }
            let link = { (name: String) in try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/\(name)") }
            return RunningProcess(pid: pid, workingDirectory: link("cwd"), standardOutput: link("fd/1"))
        }
    }

    /// The postmaster's process id from `postmaster.pid` (its first line) when `directory` is a data directory.
    static func postmasterPID(inDataDirectory directory: String) -> pid_t? {
        guard let text = try? String(contentsOfFile: directory + "/postmaster.pid", encoding: .utf8) else { return nil }
        return text.split(separator: "\n", maxSplits: 1).first.flatMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
    }
}
