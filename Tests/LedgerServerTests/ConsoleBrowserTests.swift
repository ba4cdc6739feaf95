import EmbeddedPostgres
import Foundation
import Hummingbird
import HummingbirdTesting
import LedgerServerTestSupport
import PostgresClient
import PostgresTestSupport
import Testing

/// The console in a real browser: headless Chromium driven by Selenium (`scripts/console-browser.sh`, which installs
/// Selenium from PyPI into a venv in the scratch folder) against the live server with a seeded history. Screenshots of
/// every page stay in the scratch folder (`LEDGER_KEEP_TEST_FILES=1` keeps it); with `LEDGER_CONSOLE_DOCS=<folder>`
/// the customer and invoice pages are also saved there (how docs/console-*.png were made).
@Suite struct ConsoleBrowserTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test(.timeLimit(.minutes(10))) func aBrowserSignsInReadsATimelineAsOfAnEventAndFinalizesAnInvoice() async throws {
        let harness = try await APIHarness.make(now: ConsoleTests.february2)  // January, the month it finalizes, has ended
        try await harness.application.test(.live) { client in
            let api = APIClient(client: client, harness: harness)
            let tenant = try await api.tenant()
            // A seeded history: coins bought and consumed, a lifetime unlock, another user's purchase.
            for (user, payment, product, type) in [
                ("alice", "pay-1", "coins", "consumable"), ("alice", "pay-2", "lifetime", "non_consumable"),
                ("bob", "pay-3", "coins", "consumable")
            ] {
                let bought = try await api.send(
                    .post, "/v1/users/\(user)/external-purchases", headers: tenant.secret,
                    json: ConsoleTests.purchase(payment, product: product, type: type))
                #expect(bought.status == .created, "\(bought.text)")
            }
            try await harness.project()
            #expect(try await api.send(.post, "/v1/users/alice/purchases/pay-1/consume", headers: tenant.secret).status == .ok)
            try await harness.project()
            #expect(
                try await api.send(
                    .post, "/v1/admin/plans", headers: APIClient.admin,
                    json: #"{"id":"flat","currency":"USD","tiers":[{"from":1,"unit_price_minor":100}]}"#
                ).status == .created)
            #expect(
                try await api.send(
                    .put, "/v1/admin/accounts/\(tenant.accountID)/plan", headers: APIClient.admin,
                    json: #"{"plan_id":"flat","from_month":"2026-01"}"#
                ).status == .ok)

            let port = try #require(client.port)
            let screenshots = TestScratch.path("console-browser")
            try FileManager.default.createDirectory(atPath: screenshots, withIntermediateDirectories: true)
            var environment = [
                "LEDGER_ADMIN_TOKEN=\(APIHarness.adminToken)", "CONSOLE_APP_ID=\(tenant.appID)", "CONSOLE_QUERY=pay-2",
                "CONSOLE_USER=alice", "CONSOLE_ACCOUNT=\(tenant.accountID)", "CONSOLE_MONTH=2026-01", "SCREENSHOTS=\(screenshots)"
            ]
            if let docs = ProcessInfo.processInfo.environment["LEDGER_CONSOLE_DOCS"] { environment.append("DOCS=\(docs)") }
            if let venv = ProcessInfo.processInfo.environment["CONSOLE_BROWSER_VENV"] { environment.append("CONSOLE_BROWSER_VENV=\(venv)") }
            let script = Self.repository.appendingPathComponent("scripts/console-browser.sh").path
            let result = try await ProcessRunner.runOnThread(["/usr/bin/env"] + environment + ["bash", script, "http://127.0.0.1:\(port)"])
            #expect(result.status == 0, "the browser test failed:\n\(result.output.split(separator: "\n").suffix(80).joined(separator: "\n"))")
            let shots = (try? FileManager.default.contentsOfDirectory(atPath: screenshots).filter { $0.hasSuffix(".png") }) ?? []
            #expect(shots.count >= 9, "screenshots: \(shots.sorted())")
        }
        await harness.pool.shutdown()
    }
}
