import AppStoreSamples
import Foundation
import HTTPTypes
import Testing

@Suite struct OperationalRoutesTests {
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
            #expect(lines.contains { $0.hasPrefix("hb_requests") && $0.contains(#"http_route="/uploadReceipt""#) && $0.contains(#"http_response_status_code="200""#) })
            #expect(lines.contains { $0.hasPrefix("hb_requests") && $0.contains(#"http_route="/v1/users/{user_id}""#) && $0.contains(#"http_response_status_code="401""#) })
            #expect(lines.contains { $0.hasPrefix("http_server_request_duration_bucket") })
            #expect(lines.contains { $0.hasPrefix("ledger_events_appended_total") })
            #expect(lines.contains { $0.hasPrefix("ledger_projection_lag_events") })
        }
    }
}
