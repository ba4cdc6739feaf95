import ArgumentParser
import LedgerCommands

/// The `ledger` executable. `@main` (not top-level code), so ArgumentParser's async entry point is the one called.
@main
enum LedgerMain {
    static func main() async {
        await LedgerCommand.main()
    }
}
