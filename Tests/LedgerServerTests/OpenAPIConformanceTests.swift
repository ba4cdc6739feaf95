import EmbeddedPostgres
import Foundation
import Hummingbird
import HummingbirdTesting
import LedgerServerTestSupport
import PostgresClient
import Testing

/// The API against its own OpenAPI document, from outside: Schemathesis (from PyPI, installed on first use by
/// `scripts/schemathesis.sh`) generates valid and invalid requests for every operation against the live server and
/// checks every answer — status codes, bodies and headers as documented, no 5xx, 401 without credentials, 405 for
/// undocumented methods, invalid input refused.
@Suite struct OpenAPIConformanceTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func theOpenAPIDocumentIsServedAndDescribesEveryRoute() async throws {
        try await APIHarness.make().test { api in
            let document = try await api.send(.get, "/openapi.json")
            #expect(document.status == .ok)
            #expect(document.string("openapi") == "3.1.0")
            let paths = (document.json["paths"] as? [String: Any])?.keys.sorted() ?? []
            for path in [
                "/uploadReceipt", "/uploadTransactions", "/productsStatus", "/v1/admin/accounts", "/v1/apps/{app_id}/notifications",
                "/v1/users/{user_id}/purchases/{transaction_id}/consume", "/metrics", "/v1/users/{user_id}/live",
                "/v1/apps/{app_id}/webhooks", "/v1/admin/apps/{app_id}/webhooks/{endpoint_id}/redeliver",
                "/v1/apps/{app_id}/appstore/backfill", "/v1/admin/apps/{app_id}/appstore/backfill",
                "/v1/users/{user_id}/consumption-consent", "/v1/admin/apps/{app_id}/refund-policy", "/v1/apps/{app_id}/revenue"
            ] {
                #expect(paths.contains(path), "\(path) is not documented")
            }
        }
    }

    @Test(.timeLimit(.minutes(10))) func schemathesisFindsNoFailures() async throws {
        let harness = try await APIHarness.make()
        let application = harness.application
        try await application.test(.live) { client in
            let api = try APIClient(live: client, harness: harness)
            let tenant = try await api.tenant()
            let port = try #require(client.port)
            let script = Self.repository.appendingPathComponent("scripts/schemathesis.sh").path
            let result = try await ProcessRunner.runOnThread([
                "/usr/bin/env", "LEDGER_ADMIN_TOKEN=\(APIHarness.adminToken)", "LEDGER_APP_KEY=\(tenant.secretKey)",
                // The whole suite shares this process with the server: /ready may take more than the script's 30 s default.
                "LEDGER_APP_ID=\(tenant.appID)", "SCHEMATHESIS_WAIT_FOR_SCHEMA=120", "bash", script, "http://127.0.0.1:\(port)"
            ])
            // The failures' details (request, answer, how to reproduce) and the summary, not the warnings between them.
            let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
            let failures = lines.drop { !$0.contains("FAILURES") }.prefix(80)
            let summary = (failures + ["…"] + lines.suffix(30)).joined(separator: "\n")
            #expect(result.status == 0, "schemathesis reported failures:\n\(summary)")
            // What it held, for the reader of the test log.
            let held = result.output.split(separator: "\n").filter { $0.contains("test cases") || $0.contains("passed") }.suffix(5)
            print(held.joined(separator: "\n"))
        }
        await harness.pool.shutdown()
    }
}
