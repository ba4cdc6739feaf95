import Foundation
import Glibc

/// Where tests write their files (server logs, root certificates, keys, exports): one folder per test process,
/// removed when the process exits. What a killed run left (this folder, its PostgreSQL clusters, the servers it
/// spawned) is stopped and removed by the next run (`AbandonedTestRuns`), so repeated test runs do not pile files
/// and processes up. `LEDGER_KEEP_TEST_FILES=1` keeps them for a post-mortem.
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

    /// Stops and removes what test processes that no longer run left in `base`.
    static func sweepAbandoned(in base: String) {
        guard !keep else { return }
        AbandonedTestRuns.sweep(in: base)
    }
}
