import AppStoreServerAPI
import AppStoreSync
import AppStoreVerification
import ArgumentParser
import Foundation
import LedgerDomain
import LedgerPrivacy
import LedgerRecording
import LedgerStore
import LedgerTenancy
import Logging
import PostgresClient
import UTCTime

/// What `ledger appstore backfill` and `reconcile` share: the App Store API settings, the trust roots, the database.
struct AppStoreAPIOptions: ParsableArguments {
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var masterKey: MasterKeyOptions

    @Option(help: "The ledger app (app_…).")
    var app: String

    @Option(
        name: .customLong("config"),
        help: "The App Store Server API settings file (default: $LEDGER_APPSTORE_API_CONFIG; see README, \"App Store Server API\").")
    var config: String?

    @Option(
        name: .customLong("root"),
        help: "A trusted root certificate file (DER or PEM); repeatable (default: $LEDGER_APPLE_ROOTS or Apple's roots).")
    var roots: [String] = []

    /// The settings and roots, or a usage error that says what to fix (exit 2).
    func load(command: String) throws -> (AppStoreAPISettings, TrustRoots) {
        let settings: AppStoreAPISettings
        do {
            settings = try AppStoreAPISettings.load(path: config, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw usage(command, error.message)
        }
        guard !settings.apps.isEmpty else {
            throw usage(command, "no App Store Server API settings: give --config FILE or set LEDGER_APPSTORE_API_CONFIG (see README)")
        }
        guard settings.apps[app] != nil else {
            throw usage(command, AppStoreSyncError.notConfigured(app: app).description)
        }
        do {
            return (settings, try TrustRoots.resolve(paths: roots))
        } catch {
            throw usage(command, "trust roots: \(error.message)")
        }
    }

    func usage(_ command: String, _ message: String) -> ExitCode {
        note("ledger appstore \(command): \(message)")
        return ExitCode(2)
    }

    /// What a command works with: the app, its client and settings, a recorder and a pool on the migrated database.
    struct Context {
        var app: AppRecord
        var client: AppStoreServerAPIClient
        var settings: AppStoreAPISettings.AppSettings
        var recorder: LedgerRecorder
        var pool: PostgresPool
    }

    func withApp<T>(command: String, logger: Logger, _ body: (Context) async throws -> T) async throws -> T {
        let (settings, roots) = try load(command: command)
        let (app, database, masterKey) = (app, database, masterKey)
        return try await database.withLedger(logger: logger) { pool, _, _ in
            let tenancy = TenancyStore(pool: pool)
            guard let record = try await tenancy.app(id: app) else { throw CommandFailure(AppStoreSyncError.unknownApp(app).description) }
            let client: AppStoreServerAPIClient
            do {
                client = try AppStoreClients(settings: settings, logger: logger).client(for: record)
            } catch {
                throw CommandFailure("\(error)")
            }
            let identities = IdentityStore(pool: pool, keys: try masterKey.source(database: database))
            let recorder = LedgerRecorder(
                store: EventStore(pool: pool, logger: logger), tenancy: tenancy, identities: identities, roots: roots, clock: .system)
            guard let appSettings = settings.apps[app] else { throw CommandFailure(AppStoreSyncError.notConfigured(app: app).description) }
            return try await body(Context(app: record, client: client, settings: appSettings, recorder: recorder, pool: pool))
        }
    }
}

extension AppStoreCommand {
    /// `ledger appstore backfill`: imports every transaction of the given purchases through the App Store Server API.
    struct Backfill: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backfill",
            abstract: "Import the whole App Store history of purchases (by any of their transaction ids) as ledger events.",
            discussion: """
                For each transaction id: Get Transaction History from Apple, every signed transaction verified offline and \
                recorded once (a transaction the ledger already holds from a notification or an upload is not appended again), \
                then the latest renewal info of each subscription. Prints a summary; exit 1 if any id failed.
                """)

        @OptionGroup var options: AppStoreAPIOptions

        @Option(name: .customLong("transaction-id"), help: "A transaction id (any of the purchase's); repeatable.")
        var transactionIDs: [String] = []

        @Option(name: .customLong("from-file"), help: "A file of transaction ids, one a line (blank lines and # comments ignored).")
        var fromFile: String?

        init() {}

        func run() async throws {
            let ids = try transactionIDList()
            let logger = CommandLogging.logger("ledger.appstore")
            let progress = ProgressReporter(label: "backfill", unit: "transaction ids", total: ids.count)
            let summary = try await options.withApp(command: "backfill", logger: logger) { context in
                do {
                    return try await AppStoreBackfill(recorder: context.recorder, logger: logger).run(
                        app: context.app, client: context.client, transactionIDs: ids, progress: { done, _ in progress.update(done: done) })
                } catch {
                    throw CommandFailure("\(error)")
                }
            }
            progress.finish()
            print(
                """
                backfill of app \(options.app): \(summary.purchases) purchase(s), \(summary.transactionsSeen) transaction(s) seen, \
                \(summary.eventsRecorded) event(s) recorded, \(summary.alreadyKnown) already known, \(summary.failures.count) failure(s)
                """)
            for failure in summary.failures {
                print("  \(failure.transactionID): \(failure.code)\(failure.appleErrorCode.map { " \($0)" } ?? ""): \(failure.message)")
            }
            if !summary.failures.isEmpty { throw ExitCode(1) }
        }

        func transactionIDList() throws -> [String] {
            var ids = transactionIDs
            if let fromFile {
                guard let data = FileManager.default.contents(atPath: fromFile) else {
                    throw options.usage("backfill", "cannot read --from-file \(fromFile)")
                }
                ids += String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
            }
            guard !ids.isEmpty else { throw options.usage("backfill", "give --transaction-id T (repeatable) or --from-file ids.txt") }
            if let bad = ids.first(where: { $0.count > 64 || !$0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }) {
                throw options.usage("backfill", "\"\(bad)\" is not a transaction id (digits, at most 64)")
            }
            var seen: Set<String> = []
            return ids.filter { seen.insert($0).inserted }
        }
    }

    /// `ledger appstore reconcile`: records the notifications Apple sent that the ledger does not have.
    struct Reconcile: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reconcile",
            abstract: "Record the App Store notifications of a period that the ledger missed (Get Notification History).",
            discussion: "Idempotent by notification UUID: a notification the ledger has is not recorded again. Apple keeps 180 days.")

        @OptionGroup var options: AppStoreAPIOptions

        @Option(help: "The start of the period, RFC 3339 (e.g. 2026-06-01T00:00:00Z); at most 180 days ago. The period ends now.")
        var since: String

        init() {}

        func run() async throws {
            guard let start = Instant(rfc3339: since) else {
                throw options.usage("reconcile", "--since must be an RFC 3339 time such as 2026-06-01T00:00:00Z, not \(since)")
            }
            let now = LedgerClock.system.now()
            do {
                try AppStoreReconciliation.check(since: start, now: now)
            } catch {
                throw options.usage("reconcile", error.description)
            }
            let logger = CommandLogging.logger("ledger.appstore")
            let summary = try await options.withApp(command: "reconcile", logger: logger) { context in
                do {
                    return try await AppStoreReconciliation(recorder: context.recorder, logger: logger).run(
                        app: context.app, client: context.client, since: start, now: now)
                } catch {
                    throw CommandFailure("\(error)")
                }
            }
            print(
                """
                reconcile of app \(options.app) since \(since): \(summary.seen) notification(s) seen, \(summary.missed) missed and now \
                recorded, \(summary.alreadyKnown) already known, \(summary.failures.count) failure(s)
                """)
            for failure in summary.failures { print("  notification #\(failure.index + 1): \(failure.code): \(failure.message)") }
            if !summary.failures.isEmpty { throw ExitCode(1) }
        }
    }

    /// `ledger appstore answer-consumption`: what `serve` does at each check, once: answers the app's unanswered
    /// `CONSUMPTION_REQUEST`s with Send Consumption Information (only if its settings opt in), for users who consented.
    struct AnswerConsumption: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "answer-consumption",
            abstract: "Answer the app's unanswered App Store consumption requests now (as serve does), if its settings opt in.")

        @OptionGroup var options: AppStoreAPIOptions

        init() {}

        func run() async throws {
            let logger = CommandLogging.logger("ledger.appstore")
            let summary = try await options.withApp(command: "answer-consumption", logger: logger) { context in
                guard context.settings.consumption.optedIn else {
                    throw options.usage("answer-consumption", "app \(options.app) has not opted in: set consumption_information.opted_in")
                }
                return try await ConsumptionAnswers(
                    recorder: context.recorder, requests: ConsumptionRequestQueries(pool: context.pool),
                    clock: .system, logger: logger
                )
                .answer(app: context.app, client: context.client, settings: context.settings.consumption)
            }
            print(
                """
                consumption requests of app \(options.app): \(summary.sent) answered, \(summary.withheld) withheld (no consent or no \
                user; see the purchases' events), \(summary.refused) refused by Apple
                """)
        }
    }
}
