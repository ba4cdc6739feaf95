import ArgumentParser
import Foundation
import LedgerCommands
import LedgerStore
import LedgerTenancy
import PostgresClient
import PostgresTestSupport

/// Runs `ledger <arguments>` in-process; returns the exit code it would end with.
func ledger(_ arguments: [String]) async throws -> Int32 {
    var command = try LedgerCommand.parseAsRoot(arguments)
    do {
        if var asyncCommand = command as? any AsyncParsableCommand { try await asyncCommand.run() } else { try command.run() }
        return 0
    } catch let exit as ExitCode {
        return exit.rawValue
    }
}

func count(_ url: String) async throws -> Int64 {
    let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
    return try connection.query("SELECT count(*) FROM ledger.events").first!.decode(Int64.self, at: 0)
}

func file(_ name: String) -> String { TestScratch.path(name) }

/// A fresh database migrated by `ledger migrate`, a pool on it, and one app of one billing account.
func migratedDatabaseWithOneApp() async throws -> (url: String, pool: PostgresPool, app: AppRecord) {
    let url = try await TestDatabase.makeDatabase()
    guard try await ledger(["migrate", "--database-url", url]) == 0 else { throw CommandTestFailure("ledger migrate failed") }
    let pool = try await LedgerDatabase.open(connectionString: url, migrations: try SchemaLocation.migrations())
    let tenancy = TenancyStore(pool: pool)
    let account = try await tenancy.createAccount(name: "Acme, Inc.")
    let app = try await tenancy.createApp(.init(accountID: account.id, name: "A", bundleID: "com.a"))
    return (url, pool, app)
}

struct CommandTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Imports `n` events of one stream (`k1`…`kn`) into the database at `url`.
func importEvents(_ n: Int, into url: String) async throws {
    let input = file("events.jsonl")
    try (1...n).map {
        #"{"app_id": "a", "stream": "s", "type": "t", "data": {"n": \#($0)}, "idempotency_key": "k\#($0)", "occurred_at": "#
            + #""2026-10-01T00:00:00Z"}"#
    }
    .joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
    _ = try await ledger(["events", "import", "--database-url", url, input])
}
