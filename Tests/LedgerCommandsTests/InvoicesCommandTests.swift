import Foundation
import LedgerDomain
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing

@Suite struct InvoicesCommandTests {
    @Test func finalizeShowAsOfAndExportFromTheCommandLine() async throws {
        let (url, pool, app) = try await migratedDatabaseWithOneApp()
        let day = Instant(microsecondsSinceEpoch: 1_773_100_800_000_000) // 2026-03-10
        let facts = TransactionFacts(appUserID: "USERX", productID: "monthly", transactionID: "OTIDX", originalTransactionID: "OTIDX",
                                     purchaseDate: day, expiresDate: day.adding(days: 30), signedDate: day)
        let encoded = LedgerEvent.subscriptionStarted(SubscriptionStarted(transaction: facts)).encoded()
        let owner = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
        try owner.query("""
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
        let html = file("invoice.html")
        #expect(try await ledger(["invoices", "export", "--account", app.accountID, "--format", "html", "-o", html] + base) == 0)
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("Acme, Inc.") && page.contains("9.02 USD"))

        #expect(try await ledger(["verify", "--database-url", url]) == 0)
        // An edit by a superuser who bypasses the immutability trigger is found by the reproduction.
        try owner.execute("""
            SET session_replication_role = replica;
            UPDATE ledger.invoices SET content = replace(content, '"totalMinor":902', '"totalMinor":2');
            """)
        #expect(try await ledger(["invoices", "show", "--as-of", "--account", app.accountID] + base) == 1)
        #expect(try await ledger(["verify", "--database-url", url, "--skip-invoice-replay"]) == 1)
        // Even with the hash recomputed to match, the log no longer gives that content.
        try owner.execute("""
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
}
