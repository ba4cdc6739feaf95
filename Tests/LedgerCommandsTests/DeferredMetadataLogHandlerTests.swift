import Logging
import Synchronization
import Testing

@testable import LedgerCommands

@Suite struct DeferredMetadataLogHandlerTests {
    /// What a `StreamLogHandler` writes, kept in memory.
    final class Lines: TextOutputStream, Sendable {
        let text = Mutex("")
        func write(_ string: String) { text.withLock { $0 += string } }
    }

    /// The line each handler writes, its timestamp (the first word) dropped.
    private func line(_ body: (inout Logger) -> Void, deferred: Bool) -> String {
        let lines = Lines()
        let stream = StreamLogHandler(label: "ledger.test", stream: lines)
        var logger = Logger(label: "ledger.test") { _ -> any LogHandler in deferred ? DeferredMetadataLogHandler(stream) : stream }
        body(&logger)
        return String(lines.text.withLock { $0 }.drop { $0 != " " })
    }

    @Test func linesAreTheStreamHandlersWithTheLoggersMetadata() {
        let cases: [(inout Logger) -> Void] = [
            { $0.info("no metadata") },
            { logger in
                logger[metadataKey: "request_id"] = "r-1"
                logger[metadataKey: "app"] = "app_1"
                logger.warning("with metadata")
            },
            { logger in
                // The line's own metadata wins over the logger's, as with the stream handler alone.
                logger[metadataKey: "request_id"] = "r-1"
                logger.error("overridden", metadata: ["request_id": "r-2", "extra": "x"])
            },
            { logger in
                logger[metadataKey: "request_id"] = "r-1"
                logger[metadataKey: "request_id"] = nil
                logger.notice("removed")
            }
        ]
        for body in cases {
            let written = line(body, deferred: true)
            #expect(written == line(body, deferred: false))
            #expect(written.hasSuffix("\n"))
        }
        #expect(line(cases[1], deferred: true).contains("app=app_1 request_id=r-1"))
        #expect(line(cases[2], deferred: true).contains("request_id=r-2"))
    }

    @Test func levelsBelowTheHandlersAreNotWritten() {
        let written = line(
            { logger in
                logger.logLevel = .warning
                logger[metadataKey: "request_id"] = "r-1"
                logger.info("quiet")
                logger.warning("loud")
            }, deferred: true)
        #expect(!written.contains("quiet"))
        #expect(written.contains("loud"))
    }
}
