import ArgumentParser
@testable import LedgerCommands
import LedgerServer
import Testing

/// `ledger serve --console-session-minutes` / `LEDGER_CONSOLE_SESSION_MINUTES`: how long a console sign-in lasts.
@Suite struct ConsoleSessionOptionTests {
    @Test func theConsoleSessionLifetimeComesFromTheOptionThenTheEnvironmentThenEightHours() throws {
        #expect(try ServeCommand.parse([]).apiConfiguration(environment: [:]).consoleSessionLifetime == 8 * 3600)
        #expect(
            try ServeCommand.parse([]).apiConfiguration(environment: ["LEDGER_CONSOLE_SESSION_MINUTES": "30"])
                .consoleSessionLifetime == 1800)
        #expect(
            try ServeCommand.parse(["--console-session-minutes", "5"])
                .apiConfiguration(environment: ["LEDGER_CONSOLE_SESSION_MINUTES": "30"]).consoleSessionLifetime == 300)
        for minutes in ["0", "10081"] {
            #expect(throws: ValidationError.self) {
                try ServeCommand.parse(["--console-session-minutes", minutes]).apiConfiguration(environment: [:])
            }
        }
    }
}
