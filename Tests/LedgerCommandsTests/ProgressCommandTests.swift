import Foundation
import LedgerStore
import LedgerTenancy
import PostgresClient
import PostgresTestSupport
import Testing

/// The long commands, run as the real `ledger` process with standard error in a file (not a terminal): plain
/// progress lines there, a final one with everything done, and standard output exactly the command's data.
@Suite struct ProgressCommandTests {
    /// A line at every step instead of every 10 s, so a short run shows its steps.
    static let everyStep = ["LEDGER_PROGRESS_INTERVAL": "0"]

    static func progressLines(_ stderr: String, _ label: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("\(label): ") }
    }

    @Test func importExportVerifyAndReplayReportProgressOnStandardErrorOnly() async throws {
        let url = try await TestDatabase.makeDatabase()
        let input = file("progress.jsonl")
        // More than one export / verify page (5,000 events), so those show a step before the end.
        try (1...6_000).map {
            #"{"app_id": "a", "stream": "s\#($0 % 7)", "type": "t", "data": {"n": \#($0)}, "idempotency_key": "k\#($0)", "#
                + #""occurred_at": "2026-10-01T00:00:00Z"}"#
        }
        .joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)

        let imported = try await LedgerBinary.runSeparatingOutput(["events", "import", "--database-url", url, input], environment: Self.everyStep)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "read 6000 events: appended 6000, already present 0\n")
        let importLines = Self.progressLines(imported.stderr, "import")
        #expect(importLines.count == 2 && importLines.first?.hasPrefix("import: 6000 of 6000 events (100%)") == true, "\(imported.stderr)")
        #expect(importLines.last?.hasPrefix("import: done, 6000 of 6000 events (100%) in ") == true, "\(imported.stderr)")

        let exported = try await LedgerBinary.runSeparatingOutput(["events", "export", "--database-url", url], environment: Self.everyStep)
        #expect(exported.status == 0, "\(exported.stderr)")
        let exportLines = Self.progressLines(exported.stderr, "export")
        #expect(exportLines.count == 3, "\(exported.stderr)")
        #expect(exportLines.first?.hasPrefix("export: 5000 of 6000 events (83%)") == true)
        #expect(exportLines.last?.hasPrefix("export: done, 6000 of 6000 events (100%) in ") == true)
        // Standard output is the data alone: the same bytes as an export to a file, which has no progress in it.
        let toFile = file("progress-export.jsonl")
        #expect(try await ledger(["events", "export", "--database-url", url, "-o", toFile]) == 0)
        #expect(exported.stdout == (try String(contentsOfFile: toFile, encoding: .utf8)))
        #expect(exported.stdout.split(separator: "\n").count == 6_000)

        let verified = try await LedgerBinary.runSeparatingOutput(["verify", "--database-url", url], environment: Self.everyStep)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.hasPrefix("OK: 6000 events in 7 streams"))
        #expect(
            Self.progressLines(verified.stderr, "verify").last?.hasPrefix("verify: done, 6000 of 6000 events (100%) in ") == true,
            "\(verified.stderr)")

        let replayed = try await LedgerBinary.runSeparatingOutput(["replay", "--database-url", url], environment: Self.everyStep)
        #expect(replayed.status == 0, "\(replayed.stderr)")
        let rebuilt = replayed.stdout.split(separator: "\n")
        #expect(!rebuilt.isEmpty && rebuilt.allSatisfy { $0.hasPrefix("rebuilt ") }, "\(replayed.stdout)")
        // The final line counts what every projection read: the sum of the counts on standard output.
        let sum = rebuilt.compactMap { $0.split(separator: " ").dropLast().last.flatMap { Int($0) } }.reduce(0, +)
        #expect(sum == 6_000 * rebuilt.count)
        #expect(
            Self.progressLines(replayed.stderr, "replay").last?.hasPrefix("replay: done, \(sum) of \(sum) events (100%) in ") == true,
            "\(replayed.stderr)")
    }

    @Test func finalizeAllReportsAccountsOnStandardError() async throws {
        let url = try await TestDatabase.makeDatabase()
        let pool = try await LedgerDatabase.open(connectionString: url, migrations: try SchemaLocation.migrations())
        for name in ["A", "B", "C"] { _ = try await TenancyStore(pool: pool).createAccount(name: name) }
        await pool.shutdown()

        let finalized = try await LedgerBinary.runSeparatingOutput(
            ["invoices", "finalize", "--all", "--month", "2026-03", "--database-url", url],
            environment: Self.everyStep)
        #expect(finalized.status == 0, "\(finalized.stderr)")
        #expect(finalized.stdout.split(separator: "\n").count == 3)
        #expect(finalized.stdout.split(separator: "\n").allSatisfy { $0.contains(" finalized inv_") }, "\(finalized.stdout)")
        let lines = Self.progressLines(finalized.stderr, "finalize")
        #expect(
            lines.dropLast().map { $0.prefix(while: { $0 != "," && $0 != "(" }) }
                == ["finalize: 0 of 3 accounts ", "finalize: 3 of 3 accounts "],  // a step per chunk of (up to 100) accounts
            "\(finalized.stderr)")
        #expect(lines.last?.hasPrefix("finalize: done, 3 of 3 accounts (100%) in ") == true)
    }
}
