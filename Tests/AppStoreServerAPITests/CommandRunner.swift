import ArgumentParser
import LedgerCommands

/// Runs `ledger <arguments>` in-process; returns the exit code it would end with (a failure's message is printed by
/// the real binary; here it is returned in `failure`).
func ledger(_ arguments: [String]) async throws -> Int32 {
    try await ledgerWithFailure(arguments).code
}

func ledgerWithFailure(_ arguments: [String]) async throws -> (code: Int32, failure: String?) {
    var command = try LedgerCommand.parseAsRoot(arguments)
    do {
        if var asyncCommand = command as? any AsyncParsableCommand { try await asyncCommand.run() } else { try command.run() }
        return (0, nil)
    } catch let exit as ExitCode {
        return (exit.rawValue, nil)
    } catch {
        return (1, "\(error)")
    }
}
