import ArgumentParser
import Foundation
import LedgerDomain
import LedgerStore
import PostgresClient

/// `ledger replay`: rebuild projections from the log, check the live ones against a rebuild, or show a state as of
/// an instant.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Rebuild projections from the log (--check: compare with the live tables; --as-of: a past state).",
        discussion: "Projections: \(ProjectionCatalog.names.joined(separator: ", "))."
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Only this projection (default: all).") var projection: String?
    @Flag(help: "Rebuild into scratch tables and report every difference from the live tables (exit 1 on any).") var check = false
    @Option(help: "Print the state as of this RFC 3339 instant (with --app, --key and --projection).") var asOf: String?
    @Option(help: "The app, for --as-of.") var app: String?
    @Option(help: "The state's key (user id, original transaction id, month…), for --as-of.") var key: String?

    mutating func validate() throws {
        if let projection, !ProjectionCatalog.names.contains(projection) {
            throw ValidationError("unknown projection \(projection); choose one of \(ProjectionCatalog.names.joined(separator: ", "))")
        }
        if asOf != nil, app == nil || key == nil || projection == nil {
            throw ValidationError("--as-of needs --projection, --app and --key")
        }
        if let asOf, PostgresTimestamp(rfc3339: asOf) == nil {
            throw ValidationError("--as-of must be an RFC 3339 instant such as 2026-11-01T00:00:00Z")
        }
    }

    mutating func run() async throws {
        let logger = CommandLogging.logger("ledger.replay")
        let selected = projection.map { [$0] } ?? ProjectionCatalog.names
        let (check, asOf, app, key) = (check, asOf, app, key)
        try await database.withLedger(logger: logger) { service, _, _ in
            if let asOf, let app, let key, let name = selected.first, let instant = PostgresTimestamp(rfc3339: asOf) {
                let json = try await service.withConnection { connection in
                    let events = try ProjectionReplay.events(app: app, asOf: Instant(microsecondsSinceEpoch: instant.microsecondsSinceEpoch), on: connection)
                    return try ProjectionCatalog.stateJSON(projection: name, key: key, events: events)
                }
                print(json)
                return
            }
            let progress: @Sendable (String, Int) -> Void = { name, count in note("\(name): \(count) events…") }
            if check {
                let differences = try await ProjectionReplay.check(ProjectionCatalog.runners(selected, table: .live),
                                                                   scratchRunners: ProjectionCatalog.runners(selected, table: .scratch),
                                                                   pool: service, progress: progress)
                if differences.isEmpty {
                    print("OK: \(selected.joined(separator: ", ")) equal a rebuild from the log")
                    return
                }
                print("DIFFERENT: \(differences.count) state(s) differ from a rebuild from the log")
                for difference in differences { print("  \(difference)") }
                throw ExitCode(1)
            }
            for runner in ProjectionCatalog.runners(selected, table: .live) {
                let count = try await ProjectionReplay.rebuild(runner, pool: service, progress: progress)
                print("rebuilt \(runner.name) from \(count) events")
            }
        }
    }
}
