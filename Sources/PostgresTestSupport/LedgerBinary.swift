import EmbeddedPostgres
import Foundation

/// The `ledger` executable that `swift build --build-tests` builds next to the test bundle, for tests that need the
/// real process: its exit status, its separate output streams, a kill.
public enum LedgerBinary {
    public static let url: URL = {
        let candidates = [
            Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() ?? Bundle.main.bundleURL,
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug")
        ]
        for directory in candidates {
            let url = directory.appendingPathComponent("ledger")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return candidates.last!.appendingPathComponent("ledger")
    }()

    public enum Failure: Error { case exited(Int32, String) }

    /// Runs `ledger <arguments>` to completion; returns its exit status and its output (stdout and stderr).
    public static func run(_ arguments: [String]) async throws -> ProcessRunner.Result {
        try await ProcessRunner.runOnThread([url.path] + arguments)
    }

    public static func run(_ arguments: [String], databaseURL: String) async throws -> ProcessRunner.Result {
        try await run(arguments + ["--database-url", databaseURL])
    }

    /// What a run wrote to each stream, kept apart (both are files, so neither is a terminal).
    public struct Output: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `ledger <arguments>` with `environment` added to this process's, standard output and standard error
    /// each into a file of its own.
    public static func runSeparatingOutput(_ arguments: [String], environment: [String: String] = [:]) async throws -> Output {
        let (out, err) = (TestScratch.path("ledger.stdout"), TestScratch.path("ledger.stderr"))
        let redirect = #"out="$1"; err="$2"; shift 2; exec "$@" >"$out" 2>"$err""#
        let result = try await ProcessRunner.runOnThread(
            ["/usr/bin/env"] + environment.map { "\($0.key)=\($0.value)" } + ["/bin/sh", "-c", redirect, "sh", out, err, url.path] + arguments)
        return Output(
            status: result.status, stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? result.output)
    }
}
