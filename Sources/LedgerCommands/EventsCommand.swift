import ArgumentParser
import Foundation
import LedgerStore
import PostgresClient

/// `ledger events export|import`: JSON Lines backups, migrations between servers, and seeding.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "Export or import events as JSON Lines.",
        subcommands: [Export.self, Import.self])

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write events as JSON Lines, in position order.")

        @OptionGroup var database: DatabaseOptions
        @Option(help: "Only this app's events.") var app: String?
        @Option(help: "Only events after this position.") var after: Int64 = 0
        @Option(name: .shortAndLong, help: "Output file (default: standard output).") var output: String?

        mutating func run() async throws {
            let logger = CommandLogging.logger("ledger.export")
            let sink = try OutputSink(path: output)
            try await database.withDatabase(logger: logger) { url in
                let connection = try PostgresConnectionFactory.connect(url)
                let progress = ProgressReporter(
                    label: "export", unit: "events",
                    total: try EventStore.count(on: connection, app: app, after: after))
                let count = try EventExport.export(
                    on: connection, app: app, after: after, write: { sink.write($0 + "\n") },
                    progress: { progress.update(done: $0) })
                progress.finish(done: count)
            }
            sink.close()
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Append events from a JSON Lines file (idempotent; exact restore into an empty " + "log).")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The JSON Lines file ('-' for standard input).") var file: String

        mutating func run() async throws {
            let logger = CommandLogging.logger("ledger.import")
            let text: String
            do {
                text =
                    file == "-"
                    ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                    : try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw CommandFailure("cannot read \(file): \(error.localizedDescription)")
            }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let summary = try await database.withLedger(logger: logger) { _, owner, _ in
                // The importer counts the lines that are not blank.
                let progress = ProgressReporter(label: "import", unit: "events", total: lines.count(where: { !$0.allSatisfy(\.isWhitespace) }))
                let summary = try await owner.withConnection { connection in
                    try EventImport.run(lines: lines.lazy.map(String.init), on: connection, progress: { progress.update(done: $0) })
                }
                progress.finish(done: summary.lines)
                return summary
            }
            print(
                "read \(summary.lines) events: appended \(summary.appended), already present \(summary.alreadyPresent)"
                    + (summary.restoredExactly ? " (restored with original positions and hashes)" : ""))
        }
    }
}

/// Standard output or a file, written line by line.
final class OutputSink {
    let handle: FileHandle
    let ownsHandle: Bool

    init(path: String?) throws {
        if let path, path != "-" {
            guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                throw CommandFailure("cannot write \(path)")
            }
            self.handle = handle
            ownsHandle = true
        } else {
            handle = FileHandle.standardOutput
            ownsHandle = false
        }
    }

    func write(_ text: String) { handle.write(Data(text.utf8)) }
    func close() { if ownsHandle { try? handle.close() } }
}
