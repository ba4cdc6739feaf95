import AppStoreSamples
import ArgumentParser
import Foundation
import LedgerCommands
import Logging

/// `LedgerBenchmarks`: the whole suite in one run (Benchmarks/README.md). `LedgerBenchmarks ledger …` runs the
/// `ledger` command itself; the suite starts its server that way, as a child process whose memory it measures.
@main
struct LedgerBenchmarks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Measure the ledger against raw PostgreSQL in one run.")

    @Option(help: "Seconds of the single-event append runs (ledger and pgbench).") var appendSeconds = 30
    @Option(help: "Batches of 500 events for the batched append.") var batches = 200
    @Option(help: "Signed notifications to post (each once).") var notifications = 40_000
    @Option(help: "Seconds the notification run may take at most.") var ingestSeconds = 60
    @Option(help: "Live streams open during the live and webhook run (0 skips it).") var liveStreams = 1_000
    @Option(help: "Renewals per live user (each a change of its entitlement) after its purchase.") var liveRenewals = 11
    @Option(help: "Billing accounts (one app each) in the read / replay / invoice data set.") var accounts = 1_000
    @Option(help: "Paying users per app.") var usersPerApp = 1_000
    @Option(help: "Seconds of each wrk read run.") var readSeconds = 15
    @Option(help: "Events for the large replay (0 skips it).") var largeReplayEvents = 10_000_000
    @Option(help: "Folder for the JSON and Markdown of this run.") var output = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("results").path
    @Flag(help: "A small, quick run (a smoke test of the suite, not figures to quote).") var quick = false
    @Flag(help: "Only the live streams and webhooks phase (to profile it; its figures are not kept).") var liveOnly = false
    @Flag(help: "Only the console phase (a customer with 10,000 events; its figures are not kept).") var consoleOnly = false
    @Flag(help: "Only the two append figures (to profile appends; their figures are not kept).") var appendOnly = false
    @Flag(help: "Only the data set and the status reads (to profile reads; their figures are not kept).") var readsOnly = false
    @Flag(help: "Only the notification ingest, on an empty log (to profile it; its figures are not kept).") var ingestOnly = false
    @Flag(help: "Only the data set, the status reads and the ingest, tracing off and on (to profile tracing; its figures are not kept).")
    var tracingOnly = false
    @Flag(help: "With --tracing-only: the traced server runs with tracing off too (a control: what the comparison reads with no difference).")
    var tracingControl = false
    @Option(help: "The traced server's sampling ratio in the tracing comparison (the figures' target is for 0.1; 0 and 1 show what an unsampled and a sampled request each cost).")
    var tracingRatio = "0.1"
    @Flag(help: "Only the data set and its replay, then the large replay unless --large-replay-events 0 (to profile rebuilds; its figures are not kept).")
    var replayOnly = false
    @Flag(help: "Only how cost grows: the data set at a tenth of --accounts and at --accounts (status reads, rebuild, invoices), then the large replay; its table is kept as <output>/<time>-growth.md.")
    var growth = false

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "ledger" {
            MallocArenas.limit(forCommand: Array(arguments.dropFirst()))
            await LedgerEntry.run(Array(arguments.dropFirst()))
            return
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    mutating func run() async throws {
        if quick {
            // A smoke run: its figures are not kept with the real runs.
            output = NSTemporaryDirectory() + "ledger-bench-quick"
            (appendSeconds, batches, notifications, ingestSeconds) = (5, 20, 2_000, 20)
            (liveStreams, liveRenewals) = (100, 1)
            (accounts, usersPerApp, readSeconds, largeReplayEvents) = (20, 500, 5, 0)
        }
        if liveOnly { output = NSTemporaryDirectory() + "ledger-bench-live" }
        if consoleOnly { output = NSTemporaryDirectory() + "ledger-bench-console" }
        if appendOnly { output = NSTemporaryDirectory() + "ledger-bench-append" }
        if readsOnly { output = NSTemporaryDirectory() + "ledger-bench-reads" }
        if ingestOnly { output = NSTemporaryDirectory() + "ledger-bench-ingest" }
        if tracingOnly { output = NSTemporaryDirectory() + "ledger-bench-tracing" }
        if replayOnly { output = NSTemporaryDirectory() + "ledger-bench-replay" }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let suite = Suite(options: self)
        let report = try await suite.run()
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let stamp = report.startedAt.replacingOccurrences(of: ":", with: "-")
        try report.json().write(to: URL(fileURLWithPath: output + "/\(stamp).json"))
        // A growth run keeps its own file; latest.md stays the latest full run's.
        try report.markdown().write(toFile: output + (growth ? "/\(stamp)-growth.md" : "/latest.md"), atomically: true, encoding: .utf8)
        FileHandle.standardOutput.write(Data(report.markdown().utf8))
    }
}
