import Foundation
import HTTPTypes
import LedgerServerTestSupport
import PostgresClient
import Testing

/// Sends one request and judges the answer by the rules every hostile request is held to: never a 5xx; a refusal
/// is a 4xx with `{"error":{"code","message"}}` and leaves `ledger.events` as it was; a request that must be
/// refused is. Counts what it saw, for the test's report.
final class RequestJudge {
    let api: APIClient
    private(set) var sent = 0
    private(set) var refused = 0
    private(set) var accepted = 0

    init(api: APIClient) { self.api = api }

    func eventCount() async throws -> Int64 {
        try await api.harness.pool.query("SELECT count(*) FROM ledger.events").first?.decode(Int64.self, at: 0) ?? -1
    }

    @discardableResult
    func judge(
        _ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields, body: [UInt8]?, mustReject: Bool,
        refusal: Set<Int> = Set(400..<500), _ label: @autoclosure () -> String
    ) async throws -> APIResponse {
        let before = try await eventCount()
        var fields = headers
        if body != nil { fields[.contentType] = "application/json" }
        let response = try await api.send(method, uri, headers: fields, bytes: body)
        let after = try await eventCount()
        sent += 1
        let code = response.status.code
        let what = "\(label()) → \(code) \(response.text.prefix(300))"
        #expect(code < 500, "\(what)")
        if (200..<300).contains(code) {
            accepted += 1
            #expect(!mustReject, "accepted: \(what)")
        } else {
            refused += 1
            #expect(refusal.contains(code), "\(what)")
            #expect(response.errorCode?.isEmpty == false && response.errorMessage?.isEmpty == false, "no JSON error: \(what)")
            #expect(before == after, "a refused request wrote \(after - before) event(s): \(what)")
        }
        return response
    }
}
