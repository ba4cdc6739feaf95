import AppStoreSamples
import Foundation
import HTTPTypes
import InMemoryLogging
import LedgerServerTestSupport
import Logging
import PostgresClient
import Testing

@Suite struct OperationalRoutesTests {
    /// No projection worker runs here, so the write waits for read-your-writes far longer than the request may take:
    /// the client gets a 504 in time, and the write itself is not lost. The timeout leaves the append seconds to
    /// finish even on a loaded CI machine (300 ms once timed out before the append, and nothing was written; 5 s once
    /// timed out the tenant's creation while the whole suite ran on two cores).
    /// Its log line names the route, never the path: the path names the app's user (personal data stays out of logs).
    @Test func aSlowRequestIsA504AndItsWriteIsKept() async throws {
        let harness = try await APIHarness.make(readYourWrites: .seconds(600), requestTimeout: .seconds(20))
        let logs = InMemoryLogHandler()
        try await harness.test(logger: Logger(label: "test.server", factory: { _ in logs })) { api in
            let tenant = try await api.tenant()
            let body =
                #"{"payment_id":"slow-1","provider":"x","product_id":"pro","product_type":"non_consumable","price":{"amount_milliunits":1,"#
                + #""currency":"USD"},"purchased_at":"2026-01-02T00:00:00Z"}"#
            let response = try await api.send(.post, "/v1/users/sam.named.user/external-purchases", headers: tenant.secret, json: body)
            #expect(response.status == .gatewayTimeout)
            #expect(response.errorCode == "timeout")
            let stored = try await harness.pool.query("SELECT count(*) FROM ledger.events WHERE idempotency_key LIKE 'external:%slow-1'")
            #expect(try stored.first?.decode(Int64.self, at: 0) == 1)
        }
        let timedOut = try #require(logs.entries.first { $0.message.description == "request timed out" }, "\(logs.entries)")
        #expect(timedOut.metadata["route"]?.description == "/v1/users/{user_id}/external-purchases")
        #expect(!logs.entries.contains { "\($0.message) \($0.metadata)".contains("sam.named.user") }, "\(logs.entries)")
    }

    @Test func metricsCountRequestsByRouteAndStatusAndReportAppendsAndLag() async throws {
        let harness = try await APIHarness.make()
        let receipt = try harness.signer.receipt(purchases: [ReceiptBuilder.inAppPurchase(product: "lifetime", transactionId: "77")])
        try await harness.test { api in
            let tenant = try await api.tenant()
            _ = try await api.uploadReceipt(tenant, user: "metrics-user", receipt: receipt)
            _ = try await api.send(.get, "/v1/users/metrics-user", headers: [:])
            try await harness.project()
            let metrics = try await api.send(.get, "/metrics")
            #expect(metrics.status == .ok)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
            let lines = metrics.text.split(separator: "\n")
            #expect(
                lines.contains {
                    $0.hasPrefix("hb_requests") && $0.contains(#"http_route="/uploadReceipt""#) && $0.contains(#"http_response_status_code="200""#)
                })
            #expect(
                lines.contains {
                    $0.hasPrefix("hb_requests") && $0.contains(#"http_route="/v1/users/{user_id}""#)
                        && $0.contains(#"http_response_status_code="401""#)
                })
            // Error answers are timed too, not only counted: operators need the latency of 401s, 503s and 504s.
            #expect(lines.contains { $0.hasPrefix("http_server_request_duration_bucket") && $0.contains(#"http_route="/uploadReceipt""#) })
            #expect(
                lines.contains {
                    $0.hasPrefix("http_server_request_duration_bucket") && $0.contains(#"http_route="/v1/users/{user_id}""#)
                        && $0.contains(#"http_response_status_code="401""#) && $0.contains(#"le="30.0""#)
                })
            #expect(lines.contains { $0.hasPrefix("ledger_events_appended_total") })
            #expect(lines.contains { $0.hasPrefix("ledger_projection_lag_events") })
        }
    }

    /// Every JSON answer ends with a newline, so curl's output does not run into the next prompt: a success, an error
    /// the API raises (no key), one the framework raises (no such route), and a canonical invoice text.
    @Test func jsonAnswersEndWithANewline() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let answers: [(String, HTTPResponse.Status)] = [
                ("/health", .ok), ("/v1/users/u", .unauthorized), ("/no-such-endpoint", .notFound),
                ("/v1/admin/invoices?account_id=none", .ok)
            ]
            for (uri, status) in answers {
                let answer = try await api.send(.get, uri, headers: uri.hasPrefix("/v1/admin") ? APIClient.admin : [:])
                #expect(answer.status == status, "\(uri): \(answer.text)")
                #expect(answer.headers[.contentType] == "application/json; charset=utf-8", "\(uri)")
                #expect(answer.text.hasSuffix("}\n") && !answer.text.hasSuffix("\n\n"), "\(uri): \(answer.text)")
            }
        }
    }

    /// The server serves its compiled-in copy of `openapi.json` (no resource bundle to lose); it must be the file.
    @Test func theServedOpenAPIDocumentIsTheFile() async throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/LedgerServer/OpenAPI/openapi.json")
        let expected = try String(contentsOf: file, encoding: .utf8)
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let document = try await api.send(.get, "/openapi.json")
            #expect(document.status == .ok)
            #expect(document.text == expected, "the served document differs from openapi.json (the EmbedOpenAPI build plugin compiles it in)")
        }
    }
}
