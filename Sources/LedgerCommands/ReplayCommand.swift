import ArgumentParser
import Foundation
import LedgerDomain
import LedgerPrivacy
import LedgerStore
import LedgerTenancy
import PostgresClient
import UTCTime

/// `ledger replay`: rebuild projections from the log, check the live ones against a rebuild, or show a state as of
/// an instant.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Rebuild read models from the log and swap them in (--check: compare with the live tables; --as-of: a past state).",
        discussion: "Projections: \(ProjectionCatalog.names.joined(separator: ", "))."
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Only this projection (default: all).") var projection: String?
    @Flag(help: "Rebuild into scratch tables and report every difference from the live tables (exit 1 on any).") var check = false
    @Option(help: "Print the state as of this RFC 3339 instant (with --app, --key and --projection).") var asOf: String?
    @Option(help: "The app, for --as-of.") var app: String?
    @Option(help: "The state's key (an original transaction id), for --as-of.") var key: String?
    @Option(
        help: ArgumentHelp(
            "For --as-of: print everything about this app user instead (products status, unconsumed purchases, "
                + "activated subscriptions, intro-offer eligibility)."))
    var user: String?

    @OptionGroup var masterKey: MasterKeyOptions

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
        let (check, asOf, app, key, user, database, masterKey) = (check, asOf, app, key, user, database, masterKey)
        // Not at open: a rebuild is what this command does (and --check must see the live tables as they are).
        try await database.withLedger(logger: logger, buildingReadModels: false) { service, _, _ in
            if let asOf, let app, let instant = Instant(rfc3339: asOf) {
                let events = try await service.withConnection { try ProjectionReplay.events(app: app, asOf: instant, on: $0) }
                if let user {
                    // Entitlements with the app's current catalog: configuration, not history (see `Catalog`).
                    let catalog = try await TenancyStore(pool: service).products(app: app).catalog
                    let identities = IdentityStore(pool: service, keys: try masterKey.source(database: database))
                    let (snapshot, erased) = try await UserReplay.snapshot(
                        app: app, user: user, events: events, at: instant, catalog: catalog, identities: identities)
                    if erased { note("\(user) was erased: the snapshot names them by their pseudonym, without their personal data") }
                    print(StateCodec.encode(snapshot))
                } else if let key, let name = selected.first {
                    print(try ProjectionCatalog.stateJSON(projection: name, key: key, events: events))
                }
                return
            }
            // One pass over the log folds every selected projection.
            let events = try await service.withConnection { try EventStore.count(on: $0, app: nil) }
            let reporter = ProgressReporter(label: "replay", unit: "events", total: events)
            let progress: @Sendable (Int) -> Void = { count in reporter.update(done: count) }
            if check {
                let differences = try await ProjectionReplay.check(selected, pool: service, progress: progress)
                reporter.finish()
                if differences.isEmpty {
                    print("OK: \(selected.joined(separator: ", ")) equal a rebuild from the log")
                    return
                }
                print("DIFFERENT: \(differences.count) row(s) differ from a rebuild from the log")
                for difference in differences { print("  \(difference)") }
                throw ExitCode(1)
            }
            // A rebuild is a trace of its own when traces are exported (`Observability`).
            let folded = try await Observability.traced(logger: CommandLogging.logger("ledger.replay")) {
                try await ProjectionReplay.rebuild(selected, pool: service, progress: progress)
            }
            reporter.finish(done: folded)
            // After the progress has ended, so that on a terminal no result shares the bar's line.
            print("rebuilt \(selected.joined(separator: ", ")) from \(folded) events")
        }
    }
}
