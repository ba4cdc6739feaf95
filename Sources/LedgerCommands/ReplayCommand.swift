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
    @Option(help: "The state's key (original transaction id, month|original transaction id), for --as-of.") var key: String?
    @Option(help: ArgumentHelp("For --as-of: print everything about this app user instead (products status, unconsumed purchases, "
        + "activated subscriptions, intro-offer eligibility)."))
    var user: String?

    mutating func validate() throws {
        if let projection, !ProjectionCatalog.names.contains(projection) {
            throw ValidationError("unknown projection \(projection); choose one of \(ProjectionCatalog.names.joined(separator: ", "))")
        }
        if asOf != nil, app == nil || (user == nil && (key == nil || projection == nil)) {
            throw ValidationError("--as-of needs --app, and either --user or both --projection and --key")
        }
        if let asOf, Instant(rfc3339: asOf) == nil {
            throw ValidationError("--as-of must be an RFC 3339 instant such as 2026-11-01T00:00:00Z")
        }
    }

    mutating func run() async throws {
        let logger = CommandLogging.logger("ledger.replay")
        let selected = projection.map { [$0] } ?? ProjectionCatalog.names
        let (check, asOf, app, key, user) = (check, asOf, app, key, user)
        try await database.withLedger(logger: logger) { service, _, _ in
            if let asOf, let app, let instant = Instant(rfc3339: asOf) {
                let events = try await service.withConnection { try ProjectionReplay.events(app: app, asOf: instant, on: $0) }
                if let user {
                    // Entitlements with the app's current catalog: configuration, not history (see `Catalog`).
                    let catalog = try await TenancyStore(pool: service).products(app: app).catalog
                    print(StateCodec.encode(UserSnapshot(appUserID: user, events: events, asOf: instant, catalog: catalog, at: instant)))
                } else if let key, let name = selected.first {
                    print(try ProjectionCatalog.stateJSON(projection: name, key: key, events: events))
                }
                return
            }
            // Each projection reads the whole log.
            let events = try await service.withConnection { try EventStore.count(on: $0, app: nil) }
            let reporter = ProgressReporter(label: "replay", unit: "events", total: events * selected.count)
            let progress: @Sendable (String, Int) -> Void = { name, count in reporter.update(part: name, done: count) }
            if check {
                let differences = try await ProjectionReplay.check(ProjectionCatalog.runners(selected, table: .live),
                                                                   scratchRunners: ProjectionCatalog.runners(selected, table: .scratch),
                                                                   pool: service, progress: progress)
                reporter.finish()
                if differences.isEmpty {
                    print("OK: \(selected.joined(separator: ", ")) equal a rebuild from the log")
                    return
                }
                print("DIFFERENT: \(differences.count) state(s) differ from a rebuild from the log")
                for difference in differences { print("  \(difference)") }
                throw ExitCode(1)
            }
            var rebuilt: [(name: String, count: Int)] = []
            for runner in ProjectionCatalog.runners(selected, table: .live) {
                rebuilt.append((runner.name, try await ProjectionReplay.rebuild(runner, pool: service, progress: progress)))
            }
            reporter.finish(done: rebuilt.reduce(0) { $0 + $1.count })
            // After the progress has ended, so that on a terminal no result shares the bar's line.
            for (name, count) in rebuilt { print("rebuilt \(name) from \(count) events") }
        }
    }
}
