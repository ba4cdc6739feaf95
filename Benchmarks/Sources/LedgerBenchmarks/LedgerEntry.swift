import ArgumentParser
import LedgerCommands

/// The `ledger` command inside the benchmark binary, as `Sources/Ledger/LedgerMain.swift` runs it.
enum LedgerEntry {
    static func run(_ arguments: [String]) async {
        do {
            var command = try LedgerCommand.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            LedgerCommand.exit(withError: error)
        }
    }
}
