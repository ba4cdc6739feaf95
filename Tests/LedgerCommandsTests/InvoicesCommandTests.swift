import Foundation
import LedgerDomain
import LedgerStore
import LedgerTenancy
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

@Suite struct InvoicesCommandTests {
    @Test func finalizeShowAsOfAndExportFromTheCommandLine() async throws {
        let (url, pool, app) = try await migratedDatabaseWithOneApp()
        let day = Instant(microsecondsSinceEpoch: 1_773_100_800_000_000)  // 2026-03-10
        let facts = TransactionFacts(
            appUserID: "USERX", productID: "monthly", transactionID: "OTIDX", originalTransactionID: "OTIDX",
            purchaseDate: day, expiresDate: day.adding(days: 30), signedDate: day)
        let encoded = LedgerEvent.subscriptionStarted(SubscriptionStarted(transaction: facts)).encoded()
        let owner = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
        try owner.query(
            """
            INSERT INTO ledger.events (app_id, stream_id, stream_version, event_type, schema_version, payload, idempotency_key, occurred_at)
            SELECT \(app.id), 'otx:o' || i, 1, \(encoded.type), \(encoded.schemaVersion),
                   replace(replace(\(encoded.payload), 'OTIDX', 'o' || i), 'USERX', 'u' || i)::jsonb, 'tx:o' || i, now()
            FROM generate_series(1, 1001) AS i
            """)
        await pool.shutdown()

        let base = ["--database-url", url, "--month", "2026-03"]
        #expect(try await ledger(["invoices", "draft", "--account", app.accountID] + base) == 0)
        #expect(try await ledger(["invoices", "finalize", "--all"] + base) == 0)
        #expect(try await ledger(["invoices", "finalize", "--all"] + base) == 0)
        #expect(try owner.query("SELECT count(*) FROM ledger.invoices").first?.decode(Int64.self, at: 0) == 1)
        #expect(try await ledger(["invoices", "show", "--as-of", "--account", app.accountID] + base) == 0)

        let csv = file("invoice.csv")
        #expect(try await ledger(["invoices", "export", "--account", app.accountID, "--format", "csv", "-o", csv] + base) == 0)
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\r\n")
        #expect(rows.first?.hasPrefix("invoice_number,account_id,month,kind") == true)
        #expect(rows.filter { $0.contains(",band,") }.count == 3)
        #expect(rows.last?.hasSuffix(",total,,2026-03,total,1001,,902,USD,,9.02") == true)
        // JSON leaves in snake_case: the export, the draft and the reproduction (stdout); storage is unchanged.
        let json = file("invoice.json")
        #expect(try await ledger(["invoices", "export", "--account", app.accountID, "--format", "json", "-o", json] + base) == 0)
        let draft = try await LedgerBinary.runSeparatingOutput(["invoices", "draft", "--account", app.accountID] + base)
        let reproduced = try await LedgerBinary.runSeparatingOutput(["invoices", "show", "--as-of", "--account", app.accountID] + base)
        #expect(draft.status == 0 && reproduced.status == 0, "\(draft.stderr) \(reproduced.stderr)")
        for text in [try String(contentsOfFile: json, encoding: .utf8), draft.stdout, reproduced.stdout] {
            let keys = Self.keys(try JSONSerialization.jsonObject(with: Data(text.utf8)))
            #expect(keys.contains("paying_users") && keys.contains("total_minor") && keys.contains("unit_price_minor"), "\(text)")
            #expect(!keys.contains { $0.contains { $0.isUppercase } }, "camelCase in \(text)")
        }
        let html = file("invoice.html")
        #expect(try await ledger(["invoices", "export", "--account", app.accountID, "--format", "html", "-o", html] + base) == 0)
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("Acme, Inc.") && page.contains("9.02 USD"))

        #expect(try await ledger(["verify", "--database-url", url]) == 0)
        // An edit by a superuser who bypasses the immutability trigger is found by the reproduction.
        try owner.execute(
            """
            SET session_replication_role = replica;
            UPDATE ledger.invoices SET content = replace(content, '"totalMinor":902', '"totalMinor":2');
            """)
        #expect(try await ledger(["invoices", "show", "--as-of", "--account", app.accountID] + base) == 1)
        #expect(try await ledger(["verify", "--database-url", url, "--skip-invoice-replay"]) == 1)
        // Even with the hash recomputed to match, the log no longer gives that content.
        try owner.execute(
            """
            SET session_replication_role = replica;
            UPDATE ledger.invoices SET content_hash = sha256(convert_to(content, 'UTF8'));
            """)
        #expect(try await ledger(["verify", "--database-url", url, "--skip-invoice-replay"]) == 0)
        #expect(try await ledger(["verify", "--database-url", url]) == 1)
        // A deleted invoice leaves a gap in the year's numbers.
        try owner.execute("SET session_replication_role = replica; DELETE FROM ledger.invoices;")
        #expect(try await ledger(["verify", "--database-url", url, "--skip-invoice-replay"]) == 1)
        // Usage mistakes are usage errors.
        await #expect(throws: (any Error).self) { try await ledger(["invoices", "finalize", "--database-url", url, "--month", "2026-13", "--all"]) }
    }

    /// Every key of a JSON value, at any depth.
    static func keys(_ value: Any) -> [String] {
        switch value {
        case let object as [String: Any]: object.keys.sorted() + object.values.flatMap(keys)
        case let array as [Any]: array.flatMap(keys)
        default: []
        }
    }

    /// `ledger invoices finalize` refuses the running month and a future one (by the wall clock, the command's service
    /// clock), for one account or all, and numbers nothing; the running month's draft still prints.
    @Test func finalizeRefusesAMonthThatHasNotEnded() async throws {
        let (url, pool, app) = try await migratedDatabaseWithOneApp()
        await pool.shutdown()
        let running = CalendarMonth(containing: LedgerClock.system.now())
        let future = CalendarMonth(year: running.year + 5, month: running.month)
        for month in [running, future] {
            for who in [["--all"], ["--account", app.accountID]] {
                let refused = try await LedgerBinary.runSeparatingOutput(
                    ["invoices", "finalize", "--month", month.description, "--database-url", url] + who)
                #expect(refused.status == 1 && refused.stderr.contains("\(month) has not ended yet"), "\(who): \(refused.stderr)")
                #expect(refused.stdout.isEmpty)
            }
        }
        let owner = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
        #expect(
            try owner.query("SELECT (SELECT count(*) FROM ledger.invoices) + (SELECT count(*) FROM ledger.invoice_numbers)")
                .first?.decode(Int64.self, at: 0) == 0)
        #expect(try await ledger(["invoices", "draft", "--account", app.accountID, "--month", running.description, "--database-url", url]) == 0)
    }
}
