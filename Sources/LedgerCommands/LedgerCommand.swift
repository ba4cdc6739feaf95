import ArgumentParser
import Foundation
import Logging

/// `ledger`: the service and every operator task, one subcommand each.
public struct LedgerCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "ledger",
        abstract: "Subscription Ledger: the append-only source of truth for App Store purchases.",
        subcommands: [
            ServeCommand.self, MigrateCommand.self, VerifyCommand.self, DigestCommand.self, ReplayCommand.self,
            EventsCommand.self, AppStoreCommand.self, InvoicesCommand.self, WebhooksCommand.self, OperatorsCommand.self,
            KeysCommand.self, UsersCommand.self
        ]
    )

    public init() {}
}

/// Logs go to standard error (standard output carries command results); `LEDGER_LOG_LEVEL` sets the level,
/// `LEDGER_LOG_FORMAT` the format: `text` (the default, swift-log's lines) or `json` (`JSONLogHandler`).
enum CommandLogging {
    enum Format: String { case text, json }

    static let bootstrap: Void = {
        let environment = ProcessInfo.processInfo.environment
        let level = environment["LEDGER_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let format: Format
        switch environment["LEDGER_LOG_FORMAT"].map({ $0.lowercased() }) {
        case nil, "", "text": format = .text
        case "json": format = .json
        case let other?:
            // Before any logger exists, so the mistake is said once and plainly rather than logged in a format.
            note("error: LEDGER_LOG_FORMAT=\(other) is not a log format; use `text` (the default) or `json`")
            exit(2)
        }
        // While traces are exported, each line carries the current span's `trace_id` and `span_id`.
        let provider = Observability.loggingMetadataProvider(environment)
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var handler = DeferredMetadataLogHandler(StreamLogHandler.standardError(label: label))
                handler.logLevel = level
                handler.metadataProvider = provider
                return handler
            case .json:
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                handler.metadataProvider = provider
                return handler
            }
        }
    }()

    static func logger(_ label: String) -> Logger {
        _ = bootstrap
        return Logger(label: label)
    }
}

/// Writes a line to standard error (progress and notes for people, not results).
func note(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// A failure while doing the work (not a usage mistake): printed as `Error: …`, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
