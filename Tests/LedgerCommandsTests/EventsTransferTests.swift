import ArgumentParser
import Foundation
import LedgerCommands
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing

@Suite struct EventsTransferTests {
    @Test func importIsIdempotentAndExportImportRoundTripsExactly() async throws {
        let source = try await TestDatabase.makeDatabase()
        let input = file("in.jsonl")
        let lines = (0..<2_000).map { index in
            #"{"app_id": "app-\#(index % 3)", "stream": "user-\#(index % 17)", "type": "purchase.recorded", "#
                + #""data": {"amount_minor": \#(index), "price": 0.10, "note": "ünïcode \"quoted\""}, "#
                + #""idempotency_key": "tx-\#(index)", "occurred_at": "2026-10-0\#(index % 9 + 1)T12:00:00.123456Z"}"#
        }
        try lines.joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        #expect(try await ledger(["events", "import", "--database-url", source, input]) == 0)
        #expect(try await count(source) == 2_000)
        // The same file again appends nothing.
        #expect(try await ledger(["events", "import", "--database-url", source, input]) == 0)
        #expect(try await count(source) == 2_000)

        let exported = file("out.jsonl")
        #expect(try await ledger(["events", "export", "--database-url", source, "--output", exported]) == 0)
        let exportedText = try String(contentsOfFile: exported, encoding: .utf8)
        #expect(exportedText.split(separator: "\n").count == 2_000)
        #expect(exportedText.contains(#""price": 0.10"#))  // exact digits survive

        // Restore into an empty database: a re-export is byte-for-byte the same file, and the chain verifies.
        let target = try await TestDatabase.makeDatabase()
        #expect(try await ledger(["events", "import", "--database-url", target, exported]) == 0)
        let reexported = file("again.jsonl")
        #expect(try await ledger(["events", "export", "--database-url", target, "--output", reexported]) == 0)
        #expect(try String(contentsOfFile: reexported, encoding: .utf8) == exportedText)
        #expect(try await ledger(["verify", "--database-url", target]) == 0)

        // One app only, from a position.
        let partial = file("partial.jsonl")
        #expect(try await ledger(["events", "export", "--database-url", target, "--app", "app-1", "--after", "1000", "-o", partial]) == 0)
        let partialLines = try String(contentsOfFile: partial, encoding: .utf8).split(separator: "\n")
        #expect(!partialLines.isEmpty)
        #expect(partialLines.allSatisfy { $0.contains(#""app_id":"app-1""#) })
    }

    @Test func importRejectsBadLinesWithTheLineNumber() async throws {
        let url = try await TestDatabase.makeDatabase()
        let input = file("bad.jsonl")
        try """
        {"app_id": "a", "stream": "s", "type": "t", "data": {}, "idempotency_key": "k1", "occurred_at": "2026-10-01T00:00:00Z"}
        {"app_id": "a", "stream": "s", "type": "t", "data": {}, "idempotency_key": "k2", "occurred_at": "yesterday"}
        """.write(toFile: input, atomically: true, encoding: .utf8)
        await #expect {
            _ = try await ledger(["events", "import", "--database-url", url, input])
        } throws: { error in
            "\(error)".contains("line 2") && "\(error)".contains("RFC 3339")
        }
    }
}
