import EmbeddedPostgres
import Foundation
import Hummingbird
import HummingbirdTesting
import LedgerOperators
import LedgerServerTestSupport
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// The console in a real browser: headless Chromium driven by Selenium (`scripts/console-browser.sh`, which installs
/// Selenium from PyPI into a venv in the scratch folder) against the live server with a seeded history. Screenshots of
/// every page stay in the scratch folder (`LEDGER_KEEP_TEST_FILES=1` keeps it); with `LEDGER_CONSOLE_DOCS=<folder>`
/// the customer and invoice pages are also saved there (how docs/console-*.png were made).
@Suite struct ConsoleBrowserTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test(.timeLimit(.minutes(10))) func aBrowserSignsInReadsATimelineAsOfAnEventFinalizesAnInvoiceAndActsInEachRole() async throws {
        let harness = try await APIHarness.make(now: ConsoleTests.february2)  // January, the month it finalizes, has ended
        try await harness.application.test(.live) { client in
            let api = try APIClient(live: client, harness: harness)
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

            // A webhook delivery that gave up, for support to redeliver (as ConsoleTests makes one).
            let created = try await api.send(
                .post, "/v1/apps/\(tenant.appID)/webhooks", headers: tenant.secret, json: #"{"url":"http://127.0.0.1:9/hook"}"#)
            let endpoint = try #require(created.string("endpoint_id"))
            _ = try await harness.pool.query(
                """
                INSERT INTO ledger.webhook_deliveries (app_id, endpoint_id, delivery_id, position, event_type, app_user_id, order_key,
                                                       sequence, payload, status, attempts)
                VALUES (\(tenant.appID), \(endpoint), 'msg_browser', 1, 'purchase.external', 'carol', 'carol', 1, '{}', 'given_up', 8)
                """)
            // One operator per role, each with a one-time password (the browser computes its codes).
            let operators = OperatorStore(pool: harness.pool, masterKey: harness.masterKey)
            var accounts: [String] = []
            for role in OperatorRole.allCases {
                let (record, uri) = try await operators.add(
                    name: "\(role.rawValue)-op", role: role, password: "correct horse battery staple", oneTimePassword: true,
                    by: .shell(user: "test"), at: harness.clock.now)
                accounts.append("\(role.rawValue)|\(record.name)|correct horse battery staple|\(try #require(uri))")
            }

            let port = try #require(client.port)
            let screenshots = TestScratch.path("console-browser")
            try FileManager.default.createDirectory(atPath: screenshots, withIntermediateDirectories: true)
            var environment = [
                "LEDGER_ADMIN_TOKEN=\(APIHarness.adminToken)", "CONSOLE_APP_ID=\(tenant.appID)", "CONSOLE_QUERY=pay-2",
                "CONSOLE_USER=alice", "CONSOLE_ACCOUNT=\(tenant.accountID)", "CONSOLE_MONTH=2026-01", "SCREENSHOTS=\(screenshots)",
                "CONSOLE_OPERATORS=\(accounts.joined(separator: ";"))", "CONSOLE_TOTP_TIME=\(harness.clock.now.secondsSinceEpoch)",
                "CONSOLE_WEBHOOK_PATH=/console/operations/apps/\(tenant.appID)/webhooks/\(endpoint)"
            ]
            if let docs = ProcessInfo.processInfo.environment["LEDGER_CONSOLE_DOCS"] { environment.append("DOCS=\(docs)") }
            if let venv = ProcessInfo.processInfo.environment["CONSOLE_BROWSER_VENV"] { environment.append("CONSOLE_BROWSER_VENV=\(venv)") }
            let script = Self.repository.appendingPathComponent("scripts/console-browser.sh").path
            let result = try await ProcessRunner.runOnThread(["/usr/bin/env"] + environment + ["bash", script, "http://127.0.0.1:\(port)"])
            #expect(result.status == 0, "the browser test failed:\n\(result.output.split(separator: "\n").suffix(80).joined(separator: "\n"))")
            let shots = (try? FileManager.default.contentsOfDirectory(atPath: screenshots).filter { $0.hasSuffix(".png") }) ?? []
            #expect(shots.count >= 13, "screenshots: \(shots.sorted())")
            // What the browser did is in the operator record, by each operator with their role.
            let record = try await OperatorActionLog(pool: harness.pool).list(OperatorActionFilter(), limit: 200)
            for (role, action) in [("support", "webhook.redeliver"), ("finance", "invoice.void"), ("admin", "operator.add")] {
                #expect(record.contains { $0.actor.name == "\(role)-op" && $0.actor.role == role && $0.action == action }, "\(role): \(action)")
            }
        }
        await harness.pool.shutdown()
    }
}
