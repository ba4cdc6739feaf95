import Foundation
import HTTPTypes
import LedgerServerTestSupport
import PostgresClient
import Testing

/// A first hostile-input corpus: NUL and control characters, broken percent-encoding, injection strings, wrong
/// types. Every answer is a 4xx with a JSON error, and nothing is written.
@Suite struct HostileInputTests {
    @Test func hostileIDsAndValuesAre4xxAndWriteNothing() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let tenant = try await api.tenant()
            let before = try await harness.pool.query("SELECT count(*) FROM ledger.events").first?.decode(Int64.self, at: 0)
            let purchase = { (payload: String) in
                #"{"payment_id":"p1","provider":"x","product_id":"y","product_type":"consumable","price":{"amount_milliunits":1,"currency":"USD"},"#
                    + #""purchased_at":"2026-01-02T00:00:00Z","developer_payload":"\#(payload)"}"#
            }
            let cases: [(HTTPRequest.Method, String, HTTPFields, String?)] = [
                (.get, "/v1/admin/accounts/%00", APIClient.admin, nil),
                (.get, "/v1/admin/accounts/acct_'%20OR%20'1'='1", APIClient.admin, nil),
                (.post, "/v1/apps/%00/notifications", [:], #"{"signedPayload":"x"}"#),
                (.post, "/v1/apps/..%2F..%2Fetc%2Fpasswd/notifications", [:], #"{"signedPayload":"x"}"#),
                (.get, "/v1/users/%ZZ", tenant.secret, nil),
                (.get, "/v1/users/a%00b", tenant.secret, nil),
                (.get, "/productsStatus?user-id=%00", tenant.secret, nil),
                (.post, "/v1/users/u/external-purchases", tenant.secret, purchase(#"\u0000"#)),
                (.post, "/v1/users/u/external-purchases", tenant.secret, #"{"payment_id":["x"]}"#),
                (.post, "/v1/users/u/transactions", tenant.secret, #"{"transactions":[{"signed_transaction":"\u0000.\u0000.\u0000"}]}"#),
                (.post, "/v1/users/u/transactions", tenant.secret, #"{"transactions":"' OR 1=1; DROP TABLE ledger.events; --"}"#),
                (.put, "/v1/apps/\(tenant.appID)/products/%00", tenant.secret, #"{"type":"consumable"}"#),
                (.put, "/v1/apps/\(tenant.appID)/products/x", tenant.secret, #"{"type":"consumable","entitlements":["\u0001"]}"#),
                (.post, "/uploadReceipt", tenant.publicHeaders, #"{"user-id":"\u0000","data":"AAAA"}"#)
            ]
            for (method, uri, headers, body) in cases {
                let response = try await api.send(method, uri, headers: headers, json: body)
                #expect((400..<500).contains(response.status.code), "\(method) \(uri): \(response.status) \(response.text)")
                #expect(response.errorCode != nil, "\(method) \(uri): \(response.text)")
            }
            let after = try await harness.pool.query("SELECT count(*) FROM ledger.events").first?.decode(Int64.self, at: 0)
            #expect(before == after)
            #expect(try await api.send(.get, "/health").status == .ok)
        }
    }
}
