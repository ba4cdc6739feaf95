import Foundation
import LedgerDomain
import LedgerStore
import PostgresClient
import UTCTime
import Tracing

/// Monthly invoices: drafts computed on demand, finalization (numbered, hashed, immutable), voiding with a
/// replacement, and reproduction from the log (`schema/005_invoices.sql`).
///
/// Finalizations of one account take turns on an advisory lock, so the billed history each one reads is the one
/// it extends; numbers come from a per-year row locked until commit, so they are gapless and never reused.
///
/// Only a month that has ended by `clock` is finalized (or voided, which finalizes a replacement): an invoice of a
/// running or future month would bill part of it and use up a number of its year. Drafts of any month stay possible.
public struct InvoiceStore: Sendable {
    public let pool: PostgresPool
    /// The service's clock: what "ended" means (tests pin it).
    public let clock: LedgerClock

    public init(pool: PostgresPool, clock: LedgerClock = .system) {
        self.pool = pool
        self.clock = clock
    }

    /// Refuses a month that has not ended by the clock (`InvoiceError.monthNotEnded`): it ends when the next one
    /// starts, at 00:00:00 UTC of its first day.
    public func requireEnded(_ month: CalendarMonth) throws {
        guard month < CalendarMonth(containing: clock.now()) else { throw InvoiceError.monthNotEnded(month) }
    }

    /// `YYYY-MM-01`, the first day after `month` (the day from which it may be finalized).
    static func firstDay(after month: CalendarMonth) -> String {
        let next = month.month == 12 ? CalendarMonth(year: month.year + 1, month: 1) : CalendarMonth(year: month.year, month: month.month + 1)
        return "\(next)-01"
    }

    // MARK: Plans

    public func plan(id: String) async throws -> PricePlan? {
        try await pool.withConnection { try Self.plan(id: id, on: $0) }
    }

    /// Creates a plan (plans are immutable once created; make a new one to change prices).
    public func createPlan(_ plan: PricePlan) async throws -> PricePlan {
        do { try plan.validate() } catch { throw InvoiceError.invalidPlan(error.description) }
        let tiers = String(decoding: try JSONEncoder().encode(plan.tiers), as: UTF8.self)
        do {
            try await pool.query(
                """
                INSERT INTO ledger.price_plans (id, currency, tiers) VALUES (\(plan.id), \(plan.currency), \(JSONB(tiers)))
                """)
        } catch let error as PostgresError where error.sqlState == ServerError.uniqueViolation {
            throw InvoiceError.planExists(plan.id)
        }
        return plan
    }

    /// Puts an account on a plan from `month` on. Not for a month already invoiced: that would change what a
    /// finalized invoice's reproduction prices.
    public func assignPlan(account: String, planID: String, from month: CalendarMonth) async throws {
        try await pool.transaction { connection in
            guard try Self.plan(id: planID, on: connection) != nil else { throw InvoiceError.unknownPlan(planID) }
            let invoiced = try connection.query(
                """
                SELECT 1 FROM ledger.invoices WHERE account_id = \(account) AND month >= \(month.description) LIMIT 1
                """)
            guard invoiced.isEmpty else { throw InvoiceError.planChangeForFinalizedMonth(month.description) }
            try connection.query(
                """
                INSERT INTO ledger.account_plans (account_id, from_month, plan_id) VALUES (\(account), \(month.description), \(planID))
                ON CONFLICT (account_id, from_month) DO UPDATE SET plan_id = EXCLUDED.plan_id
                """)
        }
    }

    // MARK: Invoices

    /// The invoice the account would get for `month` if finalized now (not stored).
    public func draft(account: String, month: CalendarMonth) async throws -> InvoiceContent {
        try await catchUp()
        return try await pool.transaction { connection in
            let apps = try Self.apps(of: account, on: connection)
            let usage = try InvoiceUsage.counted(on: connection, apps: apps).usage
            let prior = try Self.finalized(account: account, on: connection)
            return try Self.compute(account: account, month: month, apps: apps, usage: usage, prior: prior, on: connection)
        }
    }

    /// Finalizes the account's invoice for `month`, or returns the one already finalized (`created` false):
    /// running it twice, or from two processes at once, makes one invoice.
    public func finalize(account: String, month: CalendarMonth) async throws -> (invoice: Invoice, created: Bool) {
        try await withSpan("ledger.invoice.finalize") { span in
            span.attributes["ledger.invoice.month"] = month.description
            try requireEnded(month)
            try await catchUp()
            let finalized = try await finalizeCaughtUp(account: account, month: month)
            span.attributes["ledger.invoice.created"] = finalized.created
            return finalized
        }
    }

    /// Finalizes `month` for every account; idempotent. `progress` hears (accounts done, accounts) as it goes.
    ///
    /// Accounts go in chunks of `chunkSize`, each chunk one transaction: one count of the paying users of all its
    /// apps, one read of the plans, existing and prior invoices, then one insert per invoice.
    public func finalizeAll(
        month: CalendarMonth, chunkSize: Int = 100,
        progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) async throws -> [(invoice: Invoice, created: Bool)] {
        try await withSpan("ledger.invoice.finalize_all") { span in
            span.attributes["ledger.invoice.month"] = month.description
            let results = try await finalizeEvery(month: month, chunkSize: chunkSize, progress: progress)
            span.attributes["ledger.invoice.accounts"] = results.count
            span.attributes["ledger.invoice.created"] = results.filter(\.created).count
            return results
        }
    }

    private func finalizeEvery(
        month: CalendarMonth, chunkSize: Int, progress: (_ done: Int, _ total: Int) -> Void
    ) async throws -> [(invoice: Invoice, created: Bool)] {
        try requireEnded(month)
        let accounts = try await pool.query("SELECT id FROM ledger.accounts ORDER BY id").map { try $0.decode(String.self, at: 0) }
        try await catchUp()
        var results: [(invoice: Invoice, created: Bool)] = []
        progress(0, accounts.count)
        for start in stride(from: 0, to: accounts.count, by: max(1, chunkSize)) {
            let chunk = Array(accounts[start..<min(accounts.count, start + max(1, chunkSize))])
            results += try await pool.transaction { connection in try Self.finalize(accounts: chunk, month: month, on: connection) }
            progress(results.count, accounts.count)
        }
        return results
    }

    /// Finalizes `month` for `accounts` (sorted) in the caller's transaction.
    static func finalize(accounts: [String], month: CalendarMonth, on connection: PostgresConnection) throws -> [(invoice: Invoice, created: Bool)] {
        // Every account's lock first, in one statement and in order, so concurrent finalizations cannot deadlock.
        try connection.query(
            """
            SELECT pg_advisory_xact_lock(hashtext('ledger.invoice.' || id)) FROM unnest(\(TextArray(accounts))) AS id ORDER BY id
            """)
        let apps = try Self.apps(of: accounts, on: connection)
        let (usage, snapshot) = try InvoiceUsage.counted(on: connection, apps: apps.values.flatMap { $0 })
        let plans = try PlanBook.load(accounts: accounts, on: connection)
        var finalized: [String: [Invoice]] = [:]
        for invoice in try connection.query(
            """
            SELECT \(unescaped: Invoice.columns) FROM ledger.invoices WHERE account_id = ANY(\(TextArray(accounts))) AND status = 'finalized'
            """
        ).map(Invoice.decode) {
            finalized[invoice.accountID, default: []].append(invoice)
        }
        return try accounts.map { account in
            let prior = finalized[account] ?? []
            if let existing = prior.first(where: { $0.month == month.description }) { return (existing, false) }
            let content = InvoiceCalculator.compute(
                account: account, month: month, apps: apps[account] ?? [], usage: usage,
                billed: InvoiceCalculator.billed(by: prior.map(\.content)), plan: plans.plan(for: account))
            return (try Self.insert(content, snapshot: snapshot, replaces: nil, on: connection), true)
        }
    }

    /// The paying users counted from the read model, which includes every event committed before the call: a
    /// command run with no server (no worker) bills what the log holds, not what a worker last saw.
    private func catchUp() async throws {
        try await ProjectionWorker(pool: pool, runners: ProjectionCatalog.runners([PayingUsersReducer.name])).catchUpThroughNow()
    }

    private func finalizeCaughtUp(account: String, month: CalendarMonth) async throws -> (invoice: Invoice, created: Bool) {
        try await pool.transaction { connection in
            guard try !connection.query("SELECT 1 FROM ledger.accounts WHERE id = \(account)").isEmpty else {
                throw InvoiceError.unknownAccount(account)
            }
            return try Self.finalize(accounts: [account], month: month, on: connection)[0]
        }
    }

    /// Voids a finalized invoice and finalizes its replacement (counted now) in one transaction.
    public func void(invoiceID: String, reason: String) async throws -> (voided: Invoice, replacement: Invoice) {
        try await catchUp()
        return try await pool.transaction { connection in
            guard let original = try Self.invoice(id: invoiceID, on: connection) else { throw InvoiceError.unknownInvoice(invoiceID) }
            try Self.lock(account: original.accountID, on: connection)
            guard let current = try Self.invoice(id: invoiceID, on: connection) else { throw InvoiceError.unknownInvoice(invoiceID) }
            guard current.status == "finalized" else { throw InvoiceError.alreadyVoided(current.displayNumber) }
            guard let month = CalendarMonth(parsing: current.month) else { throw InvoiceError.unknownInvoice(invoiceID) }
            // Its replacement is finalized for the same month, so the same rule holds.
            try requireEnded(month)
            let others = try Self.finalized(account: current.accountID, on: connection).filter { $0.id != current.id }
            if let later = others.first(where: { $0.content.adjustments.contains { $0.month == current.month } }) {
                throw InvoiceError.adjustedLater(invoice: current.displayNumber, by: later.displayNumber)
            }
            let apps = try Self.apps(of: current.accountID, on: connection)
            let (usage, snapshot) = try InvoiceUsage.counted(on: connection, apps: apps)
            let replacementID = RandomToken.identifier(prefix: "inv_")
            try connection.query(
                """
                UPDATE ledger.invoices SET status = 'voided', voided_at = now(), void_reason = \(reason),
                    replaced_by = \(replacementID)
                WHERE id = \(current.id)
                """)
            let content = try Self.compute(account: current.accountID, month: month, apps: apps, usage: usage, prior: others, on: connection)
            let replacement = try Self.insert(content, snapshot: snapshot, replaces: current.id, id: replacementID, on: connection)
            guard let voided = try Self.invoice(id: current.id, on: connection) else { throw InvoiceError.unknownInvoice(invoiceID) }
            return (voided, replacement)
        }
    }

    public func invoice(id: String) async throws -> Invoice? {
        try await pool.withConnection { try Self.invoice(id: id, on: $0) }
    }

    /// The account's live (finalized, not voided) invoice for a month.
    public func invoice(account: String, month: CalendarMonth) async throws -> Invoice? {
        try await pool.withConnection { try Self.live(account: account, month: month, on: $0) }
    }

    /// Invoices, newest number first, optionally of one account and / or month (voided ones included).
    public func list(account: String? = nil, month: CalendarMonth? = nil) async throws -> [Invoice] {
        try await pool.query(
            """
            SELECT \(unescaped: Invoice.columns) FROM ledger.invoices
            WHERE (\(account)::text IS NULL OR account_id = \(account)) AND (\(month?.description)::text IS NULL OR month = \(month?.description))
            ORDER BY year DESC, number DESC
            """
        ).map(Invoice.decode)
    }

    /// The invoice recomputed from the log in its snapshot, with the billed history and plans it was finalized
    /// with: equal to the stored content (and hash) unless something was altered.
    /// A finalized invoice recomputed from the log.
    public struct Reproduction: Sendable {
        public var stored: Invoice
        public var recomputed: InvoiceContent
        public var recomputedHash: [UInt8]
        /// The stored content still has the stored hash (not edited in place).
        public var storedContentMatchesHash: Bool { InvoiceCanonicalJSON.hash(stored.contentJSON) == stored.contentHash }
        /// Both: the stored content has its hash, and the log still gives that content.
        public var isReproduced: Bool { storedContentMatchesHash && recomputedHash == stored.contentHash }
        public var recomputedHashHex: String { Hex.string(recomputedHash) }
    }

    public func reproduce(id: String) async throws -> Reproduction {
        try await pool.withConnection { try Self.reproduce(id: id, on: $0) }
    }

    public static func reproduce(id: String, on connection: PostgresConnection) throws -> Reproduction {
        guard let invoice = try Self.invoice(id: id, on: connection) else { throw InvoiceError.unknownInvoice(id) }
        guard let month = CalendarMonth(parsing: invoice.month) else { throw InvoiceError.unknownInvoice(id) }
        let apps = try Self.apps(of: invoice.accountID, on: connection)
        let usage = try InvoiceUsage.folded(on: connection, apps: apps, snapshot: invoice.snapshot)
        // The invoices that were live when this one was finalized.
        let prior = try connection.query(
            """
            SELECT \(unescaped: Invoice.columns) FROM ledger.invoices
            WHERE account_id = \(invoice.accountID) AND id <> \(invoice.id) AND finalized_at < \(invoice.finalizedAt)
              AND (voided_at IS NULL OR voided_at > \(invoice.finalizedAt))
            """
        ).map(Invoice.decode)
        let content = try Self.compute(
            account: invoice.accountID, month: month, apps: apps, usage: usage, prior: prior,
            on: connection, appsAsOf: invoice.content.apps.map(\.appID))
        return Reproduction(stored: invoice, recomputed: content, recomputedHash: InvoiceCanonicalJSON.hash(InvoiceCanonicalJSON.encode(content)))
    }

    // MARK: Helpers on a connection

    static func compute(
        account: String, month: CalendarMonth, apps: [String], usage: [String: [String: Int]], prior: [Invoice],
        on connection: PostgresConnection, appsAsOf: [String]? = nil
    ) throws -> InvoiceContent {
        InvoiceCalculator.compute(
            account: account, month: month, apps: appsAsOf ?? apps, usage: usage,
            billed: InvoiceCalculator.billed(by: prior.filter { $0.month != month.description }.map(\.content)),
            plan: try PlanBook.load(accounts: [account], on: connection).plan(for: account))
    }

    /// Apps by account (every account of `accounts`, with no app an empty list).
    static func apps(of accounts: [String], on connection: PostgresConnection) throws -> [String: [String]] {
        var apps = Dictionary(uniqueKeysWithValues: accounts.map { ($0, [String]()) })
        for row in try connection.query(
            """
            SELECT account_id, id FROM ledger.apps WHERE account_id = ANY(\(TextArray(accounts))) ORDER BY account_id, id
            """)
        {
            apps[try row.decode(String.self, at: 0), default: []].append(try row.decode(String.self, at: 1))
        }
        return apps
    }

    static func insert(
        _ content: InvoiceContent, snapshot: String, replaces: String?, id: String? = nil,
        on connection: PostgresConnection
    ) throws -> Invoice {
        let json = InvoiceCanonicalJSON.encode(content)
        let year = Int32(content.month.prefix(4)) ?? 0
        let number = try connection.query(
            """
            INSERT INTO ledger.invoice_numbers (year, last) VALUES (\(year), 1)
            ON CONFLICT (year) DO UPDATE SET last = ledger.invoice_numbers.last + 1 RETURNING last
            """)[0].decode(Int32.self, at: 0)
        return try Invoice.decode(
            connection.query(
                """
                INSERT INTO ledger.invoices (id, account_id, month, year, number, status, content, content_hash, total_minor,
                                             currency, snapshot, replaces)
                VALUES (\(id ?? RandomToken.identifier(prefix: "inv_")), \(content.accountID), \(content.month), \(year), \(number),
                        'finalized', \(json), \(InvoiceCanonicalJSON.hash(json)), \(content.totalMinor), \(content.currency),
                        \(snapshot)::pg_snapshot, \(replaces))
                RETURNING \(unescaped: Invoice.columns)
                """)[0])
    }

    static func lock(account: String, on connection: PostgresConnection) throws {
        try connection.query("SELECT pg_advisory_xact_lock(hashtext(\("ledger.invoice." + account)))")
    }

    static func apps(of account: String, on connection: PostgresConnection) throws -> [String] {
        guard try !connection.query("SELECT 1 FROM ledger.accounts WHERE id = \(account)").isEmpty else {
            throw InvoiceError.unknownAccount(account)
        }
        return try connection.query("SELECT id FROM ledger.apps WHERE account_id = \(account) ORDER BY id").map { try $0.decode(String.self, at: 0) }
    }

    static func finalized(account: String, on connection: PostgresConnection) throws -> [Invoice] {
        try connection.query(
            """
            SELECT \(unescaped: Invoice.columns) FROM ledger.invoices WHERE account_id = \(account) AND status = 'finalized'
            """
        ).map(Invoice.decode)
    }

    static func live(account: String, month: CalendarMonth, on connection: PostgresConnection) throws -> Invoice? {
        try connection.query(
            """
            SELECT \(unescaped: Invoice.columns) FROM ledger.invoices
            WHERE account_id = \(account) AND month = \(month.description) AND status = 'finalized'
            """
        ).first.map(Invoice.decode)
    }

    static func invoice(id: String, on connection: PostgresConnection) throws -> Invoice? {
        try connection.query("SELECT \(unescaped: Invoice.columns) FROM ledger.invoices WHERE id = \(id)").first.map(Invoice.decode)
    }

    static func plan(id: String, on connection: PostgresConnection) throws -> PricePlan? {
        guard let row = try connection.query("SELECT currency, tiers::text FROM ledger.price_plans WHERE id = \(id)").first else { return nil }
        let tiers = try JSONDecoder().decode([PricePlan.Tier].self, from: Data(try row.decode(String.self, at: 1).utf8))
        return PricePlan(id: id, currency: try row.decode(String.self, at: 0), tiers: tiers)
    }
}

/// The price plans of some accounts, read once: which plan each account is on from which month (`account_plans`,
/// `standard` without a row) and the plans themselves.
struct PlanBook {
    var assignments: [String: [(from: String, planID: String)]]
    var plans: [String: PricePlan]

    static func load(accounts: [String], on connection: PostgresConnection) throws -> PlanBook {
        var assignments: [String: [(from: String, planID: String)]] = [:]
        for row in try connection.query(
            """
            SELECT account_id, from_month, plan_id FROM ledger.account_plans WHERE account_id = ANY(\(TextArray(accounts)))
            ORDER BY account_id, from_month
            """)
        {
            let assignment = (from: try row.decode(String.self, at: 1), planID: try row.decode(String.self, at: 2))
            assignments[try row.decode(String.self, at: 0), default: []].append(assignment)
        }
        var plans: [String: PricePlan] = [:]
        for id in Set(assignments.values.flatMap { $0.map(\.planID) } + ["standard"]) { plans[id] = try InvoiceStore.plan(id: id, on: connection) }
        return PlanBook(assignments: assignments, plans: plans)
    }

    /// The account's plan in a month.
    func plan(for account: String) -> (CalendarMonth) -> PricePlan {
        let assigned = assignments[account] ?? []
        return { month in
            let id = assigned.last(where: { $0.from <= month.description })?.planID ?? "standard"
            return plans[id] ?? .standard
        }
    }
}
