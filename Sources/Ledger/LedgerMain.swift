import ArgumentParser
import Foundation
import LedgerCommands

/// The `ledger` executable. `@main` (not top-level code), so ArgumentParser's async entry point is the one called.
/// Usage mistakes exit with status 2 (the Unix convention, and what `ledger appstore decode` promises); failures
/// while working exit 1.
@main
enum LedgerMain {
    static func main() async {
        MallocArenas.limit(forCommand: Array(CommandLine.arguments.dropFirst()))
        do {
            var command = try LedgerCommand.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if LedgerCommand.exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((LedgerCommand.fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            LedgerCommand.exit(withError: error)
        }
    }
}
