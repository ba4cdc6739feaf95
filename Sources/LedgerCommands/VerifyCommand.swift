import ArgumentParser
import LedgerStore
import PostgresClient

/// `ledger verify`: recomputes the hash chain of the whole log. Exit 0: intact; exit 1: the first problems found,
/// each with its position.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "verify", abstract: "Check that no event was altered, removed or inserted.")

    @OptionGroup var database: DatabaseOptions

    mutating func run() async throws {
        let logger = CommandLogging.logger("ledger.verify")
        let report = try await database.withDatabase(logger: logger) { url in
            let connection = try PostgresConnectionFactory.connect(url)
            guard try connection.query("SELECT to_regclass('ledger.events') IS NOT NULL").first?.decode(Bool.self, at: 0) == true else {
                throw CommandFailure("this database has no ledger yet: run `ledger migrate` (or `ledger serve`) first")
            }
            return try LogVerifier().verify(on: connection) { checked in
                if checked % 100_000 == 0 { note("verified \(checked) events…") }
            }
        }
        if report.isIntact {
            print("OK: \(report.eventsChecked) events in \(report.streams) streams; the hash chain is intact")
            return
        }
        print("TAMPERED: \(report.problems.count) problem(s) in \(report.eventsChecked) events checked")
        for problem in report.problems { print("  [\(problem.kind.rawValue)] \(problem)") }
        throw ExitCode(1)
    }
}
