import Foundation
import Logging
import PostgresTestSupport
import Synchronization
import Testing

@testable import LedgerCommands

/// `LEDGER_LOG_FORMAT=json`: one JSON object per line with the text lines' fields.
@Suite struct JSONLogHandlerTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var objects: [[String: Any]] {
            lines.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
    }

    @Test func eachLineIsOneObjectWithTheTextLinesFields() throws {
        let sink = Lines()
        var logger = Logger(label: "ledger.test") { label in JSONLogHandler(label: label, write: { sink.add($0) }) }
        logger[metadataKey: "request_id"] = "r-1"
        logger[metadataKey: "app"] = "app_1"
        logger.info(
            "applied \"migration\"\nsecond line", metadata: ["request_id": "r-2", "sizes": [.stringConvertible(1), "two"], "nested": ["a": "b"]])
        logger.debug("below the level")
        logger.logLevel = .debug
        logger.debug("now written")

        let written = sink.lines.withLock { $0 }
        #expect(written.count == 2)
        #expect(written.allSatisfy { $0.hasSuffix("\n") && $0.dropLast().firstIndex(of: "\n") == nil }, "one line each: \(written)")
        let first = try #require(sink.objects.first)
        #expect(first["level"] as? String == "info" && first["label"] as? String == "ledger.test")
        #expect(first["message"] as? String == "applied \"migration\"\nsecond line")
        #expect(first["source"] as? String == "LedgerCommandsTests")
        let timestamp = try #require(first["timestamp"] as? String)
        #expect(timestamp.hasSuffix("Z") && timestamp.hasPrefix("20"), "\(timestamp)")
        let metadata = try #require(first["metadata"] as? [String: Any])
        #expect(metadata["request_id"] as? String == "r-2", "the line's metadata wins over the logger's")
        #expect(metadata["app"] as? String == "app_1")
        #expect((metadata["sizes"] as? [String]) == ["1", "two"])
        #expect((metadata["nested"] as? [String: String]) == ["a": "b"])
        #expect(sink.objects.last?["level"] as? String == "debug")
    }

    /// The service's own lines, as a log shipper reads them; a format it does not know is a CLI error.
    @Test func theServiceWritesJSONLinesAndRefusesAnUnknownFormat() async throws {
        let database = try await TestDatabase.makeDatabase(prefix: "jsonlog")
        let json = try await LedgerBinary.runSeparatingOutput(
            ["migrate"], environment: ["DATABASE_URL": database, "LEDGER_LOG_FORMAT": "json", "LEDGER_LOG_LEVEL": "info"])
        #expect(json.status == 0, "\(json.stderr)")
        let lines = json.stderr.split(separator: "\n")
        #expect(!lines.isEmpty, "migrate logged nothing")
        for line in lines {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["level"] is String && object?["label"] is String && object?["message"] is String, "not a JSON line: \(line)")
        }
        #expect(lines.contains { $0.contains("\"migration\":\"001_event_log\"") }, "\(json.stderr.prefix(600))")

        let refused = try await LedgerBinary.runSeparatingOutput(["migrate"], environment: ["DATABASE_URL": database, "LEDGER_LOG_FORMAT": "xml"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("LEDGER_LOG_FORMAT=xml") && refused.stderr.contains("`json`"), "\(refused.stderr)")
    }
}
