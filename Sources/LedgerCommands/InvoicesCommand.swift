import ArgumentParser
import Foundation
import LedgerBilling
import LedgerDomain
import LedgerStore
import LedgerTenancy
import Logging
import PostgresClient
import UTCTime

/// `ledger invoices …`: monthly usage invoices for finance.
struct InvoicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invoices",
        abstract: "Draft, finalize, void, show, list and export monthly invoices.",
        subcommands: [Draft.self, Finalize.self, Void.self, Show.self, List.self, Export.self]
    )

    /// `--account` and `--month`, shared by the subcommands.
    struct Selection: ParsableArguments {
        @Option(help: "The billing account id (acct_…).")
        var account: String?

        @Option(help: "The calendar month, YYYY-MM (UTC).")
        var month: String?

        @Option(help: "The invoice id (inv_…), for void, show and export; else --account and --month name the live one.")
        var id: String?

        func calendarMonth() throws -> CalendarMonth {
            guard let text = month else { throw ValidationError("--month YYYY-MM is required") }
            guard let month = CalendarMonth(parsing: text) else { throw ValidationError("--month must be YYYY-MM, e.g. 2026-03") }
            return month
        }

        func requiredAccount() throws -> String {
            guard let account else { throw ValidationError("--account ID is required") }
            return account
        }
    }

    /// Runs `body` with the invoice store of the ledger's database; invoice refusals become command failures.
    static func withInvoices<T>(_ database: DatabaseOptions, _ body: (InvoiceStore) async throws -> T) async throws -> T {
        let logger = CommandLogging.logger("ledger.invoices")
        return try await database.withLedger(logger: logger) { service, _, _ in
            do {
                return try await body(InvoiceStore(pool: service))
            } catch let error as InvoiceError {
                throw CommandFailure(error.description)
            }
        }
    }

    struct Draft: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the invoice the account would get if finalized now (JSON; not stored).")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var selection: Selection

        func run() async throws {
            let (account, month) = (try selection.requiredAccount(), try selection.calendarMonth())
            let content = try await withInvoices(database) { try await $0.draft(account: account, month: month) }
            print(InvoiceRendering.contentJSON(content))
        }
    }

    struct Finalize: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Finalize the month's invoice of an account, or of every account with --all; idempotent.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var selection: Selection
        @Flag(help: "Every account.")
        var all = false

        func run() async throws {
            let month = try selection.calendarMonth()
            guard all != (selection.account != nil) else { throw ValidationError("give either --account ID or --all") }
            let account = selection.account
            let results = try await withInvoices(database) { store in
                // A finalization is a trace of its own when traces are exported (`Observability`).
                try await Observability.traced(logger: CommandLogging.logger("ledger.invoices")) {
                    if let account { return [try await store.finalize(account: account, month: month)] }
                    let progress = ProgressReporter(label: "finalize", unit: "accounts")
                    let results = try await store.finalizeAll(month: month) { progress.update(done: $0, total: $1) }
                    progress.finish(done: results.count)
                    return results
                }
            }
            for (invoice, created) in results {
                print(
                    "\(invoice.displayNumber) \(invoice.accountID) \(invoice.month) "
                        + "\(InvoiceRendering.major(invoice.content.totalMinor, invoice.content.currency)) \(invoice.content.currency) "
                        + "\(created ? "finalized" : "already finalized") \(invoice.id)")
            }
        }
    }

    struct Void: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Void a finalized invoice and finalize its replacement.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var selection: Selection
        @Option(help: "Why it is voided (kept with the invoice).")
        var reason: String

        func run() async throws {
            let (voided, replacement) = try await withInvoices(database) { store in
                let target = try await Show.resolve(store, selection: selection)
                return try await store.void(invoiceID: target.id, reason: reason)
            }
            print(
                "voided \(voided.displayNumber) (\(voided.id)); replacement \(replacement.displayNumber) (\(replacement.id)) "
                    + "\(InvoiceRendering.major(replacement.content.totalMinor, replacement.content.currency)) \(replacement.content.currency)")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print an invoice (JSON); with --as-of, recompute it from the log as of its finalization and compare.",
            discussion: "With --as-of, exit 0 when the recomputed content hash equals the stored one, 1 when it differs.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var selection: Selection
        @Flag(name: .customLong("as-of"), help: "Recompute from the log as of the invoice's finalization and compare hashes.")
        var asOf = false

        func run() async throws {
            let asOf = asOf
            let selection = selection
            let output: (text: String, same: Bool) = try await withInvoices(database) { store in
                let invoice = try await Self.resolve(store, selection: selection)
                guard asOf else { return (InvoiceRendering.json(invoice), true) }
                let reproduced = try await store.reproduce(id: invoice.id)
                return (
                    """
                    {"id":\(InvoiceRendering.quoted(invoice.id)),"number":\(InvoiceRendering.quoted(invoice.displayNumber)),\
                    "snapshot":\(InvoiceRendering.quoted(invoice.snapshot)),"finalized_at":\(InvoiceRendering.quoted(invoice.finalizedAt.rfc3339)),\
                    "stored_hash":"\(invoice.contentHashHex)","stored_content_matches_hash":\(reproduced.storedContentMatchesHash),\
                    "recomputed_hash":"\(reproduced.recomputedHashHex)","reproduced":\(reproduced.isReproduced),\
                    "recomputed":\(InvoiceRendering.contentJSON(reproduced.recomputed))}
                    """, reproduced.isReproduced
                )
            }
            print(output.text)
            if !output.same { throw ExitCode(1) }
        }

        static func resolve(_ store: InvoiceStore, selection: Selection) async throws -> Invoice {
            if let id = selection.id {
                guard let invoice = try await store.invoice(id: id) else { throw InvoiceError.unknownInvoice(id) }
                return invoice
            }
            let (account, month) = (try selection.requiredAccount(), try selection.calendarMonth())
            guard let invoice = try await store.invoice(account: account, month: month) else {
                throw CommandFailure("account \(account) has no finalized invoice for \(month); `ledger invoices draft` shows what it would be")
            }
            return invoice
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List invoices (newest first), optionally of one account and/or month.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var selection: Selection

        func run() async throws {
            let month = try selection.month.map { _ in try selection.calendarMonth() }
            let account = selection.account
            let invoices = try await withInvoices(database) { try await $0.list(account: account, month: month) }
            print("number\tstatus\taccount\tmonth\tpaying_users\ttotal\tcurrency\tid")
            for i in invoices {
                let total = InvoiceRendering.major(i.content.totalMinor, i.content.currency)
                print(
                    "\(i.displayNumber)\t\(i.status)\t\(i.accountID)\t\(i.month)\t"
                        + "\(i.content.payingUsers)\t\(total)\t\(i.content.currency)\t\(i.id)")
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Export an invoice as CSV (one row per line item), JSON or printable HTML.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var selection: Selection
        @Option(help: "csv, json or html.")
        var format = "csv"
        @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
        var output: String?

        func run() async throws {
            guard ["csv", "json", "html"].contains(format) else { throw ValidationError("--format must be csv, json or html") }
            let (selection, format) = (selection, format)
            let text = try await withInvoices(database) { store in
                let invoice = try await Show.resolve(store, selection: selection)
                switch format {
                case "json": return InvoiceRendering.json(invoice)
                case "html":
                    let name = try await TenancyStore(pool: store.pool).account(id: invoice.accountID)?.name ?? invoice.accountID
                    return InvoiceRendering.html(invoice, accountName: name)
                default: return InvoiceRendering.csv(invoice)
                }
            }
            if let output {
                try Data(text.utf8).write(to: URL(fileURLWithPath: output))
            } else {
                print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
            }
        }
    }
}
