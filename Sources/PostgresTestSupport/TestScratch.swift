import Foundation
import Glibc

/// Where tests write their files (server logs, root certificates, keys, exports): one folder per test process,
/// removed when the process exits. A folder left by a killed run is removed by the next run, so repeated test runs
/// do not pile files up in the temporary folder. `LEDGER_KEEP_TEST_FILES=1` keeps them for a post-mortem.
public enum TestScratch {
    static let prefix = "ledger-scratch-"
    static let keep = ProcessInfo.processInfo.environment["LEDGER_KEEP_TEST_FILES"] == "1"

    public static let directory: String = {
        let base = NSTemporaryDirectory()
        sweepAbandoned(in: base)
        let directory = base + prefix + "\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if !keep {
            atexit { try? FileManager.default.removeItem(atPath: TestScratch.directory) }
        }
        return directory
    }()

    /// A new path in the scratch folder; `name` ends it, so a kept file says what it is.
    public static func path(_ name: String) -> String {
        directory + "/" + UUID().uuidString.prefix(8) + "-" + name
    }

    /// Removes the scratch folders of processes that no longer run.
    static func sweepAbandoned(in base: String) {
        guard !keep, let names = try? FileManager.default.contentsOfDirectory(atPath: base) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(atPath: base + name) }
        }
    }
}
