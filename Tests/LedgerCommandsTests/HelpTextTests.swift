import ArgumentParser
@testable import LedgerCommands
import Testing

/// `ledger … --help` is wrapped by the argument parser to the terminal's width; a line break written into a text
/// survives that wrapping and cuts a sentence in two, so texts break lines only between paragraphs and list items.
@Suite struct HelpTextTests {
    static func commands(_ root: any ParsableCommand.Type, path: String = "ledger") -> [(String, any ParsableCommand.Type)] {
        [(path, root)]
            + root.configuration.subcommands.flatMap { sub in
                commands(sub, path: path + " " + (sub.configuration.commandName ?? "\(sub)"))
            }
    }

    @Test func noHelpTextBreaksALineInsideASentence() {
        var found: [String] = []
        for (path, command) in Self.commands(LedgerCommand.self) {
            let configuration = command.configuration
            if configuration.abstract.contains("\n") { found.append("\(path): the abstract has a line break") }
            let lines = configuration.discussion.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (before, after) in zip(lines, lines.dropFirst()) where !before.isEmpty && !after.isEmpty {
                let isListItem = before.contains(" → ")
                let continuesASentence = after.first.map { $0.isLowercase || $0 == "(" } ?? false
                if continuesASentence && !isListItem { found.append("\(path): \"…\(before.suffix(20))⏎\(after.prefix(20))…\"") }
            }
        }
        #expect(found.isEmpty, "line breaks inside sentences (use a trailing \\ in the literal): \(found)")
    }

    @Test func aParagraphReachesTheParserAsOneLine() {
        // Wide enough that the parser wraps nothing: the paragraph must come out on one line.
        let help = LedgerCommand.helpMessage(for: AppStoreCommand.Backfill.self, columns: 1000)
        #expect(help.contains("verified offline and recorded once (a transaction the ledger already holds"))
    }
}
