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

/// Logs go to standard error (standard output carries command results); `LEDGER_LOG_LEVEL` sets the level.
enum CommandLogging {
    static let bootstrap: Void = {
        let level = ProcessInfo.processInfo.environment["LEDGER_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = DeferredMetadataLogHandler(StreamLogHandler.standardError(label: label))
            handler.logLevel = level
            return handler
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
