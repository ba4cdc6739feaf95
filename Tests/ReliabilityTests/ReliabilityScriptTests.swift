import EmbeddedPostgres
import Foundation
import PostgresTestSupport
import Testing

/// `scripts/reliability.sh` is the full-figure run of this suite: when the suite fails, so must the script.
@Suite struct ReliabilityScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/reliability.sh").path

    /// A stand-in `swift` first on PATH: `swift test` prints summary lines and fails; any other call (the fuzzer's
    /// build) is recorded in `calls` and succeeds, so only the script's own handling of the failure can stop it.
    @Test func aFailedSuiteFailsTheScriptWithItsSummaryAndBeforeFuzzing() async throws {
        let bin = TestScratch.path("reliability-script-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let calls = bin + "/calls"
        try """
        #!/bin/sh
        if [ "$1" = test ]; then
            echo "reliability[crash] deliveries=3 kills=1"
            echo "✘ Test run with 7 tests in 7 suites failed after 1.0 seconds with 1 issue."
            exit 3
        fi
        echo "$*" >> "\(calls)"
        """.write(toFile: bin + "/swift.txt", atomically: true, encoding: .utf8)
        // Made executable by a child process: a file this process wrote can still be open in a child another test
        // is forking at that moment, and executing it then fails ("Text file busy").
        #expect(try await ProcessRunner.runOnThread(["/usr/bin/install", "-m", "755", bin + "/swift.txt", bin + "/swift"]).status == 0)
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"

        let result = try await ProcessRunner.runOnThread(["/usr/bin/env", "PATH=\(bin):\(path)", "bash", Self.script, "1"])

        #expect(result.status == 3, "\(result.output)")
        #expect(result.output.contains("reliability[crash] deliveries=3 kills=1"))
        #expect(result.output.contains("Test run with 7 tests in 7 suites failed"))
        #expect(!FileManager.default.fileExists(atPath: calls), "the script went on to fuzz after a failed suite")
    }
}
