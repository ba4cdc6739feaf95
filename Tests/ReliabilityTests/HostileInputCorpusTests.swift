import AppStoreSamples
import Foundation
import HTTPTypes
import LedgerServerTestSupport
import Testing

/// Issue 8 item 5: the hostile-input corpus (Corpus/) against every operation of the served OpenAPI document, with
/// the right credential and with missing or wrong ones. Every answer is below 500; every refusal is a 4xx with a
/// JSON error and writes no event; values that are never valid are refused; the server answers afterwards.
@Suite struct HostileInputCorpusTests {
    static let bodyLimit = 64 * 1024

    @Test(.timeLimit(.minutes(10))) func everyOperationRefusesHostileInputAndWritesNothing() async throws {
        let expired = try AppStoreForgeries.expiredPKI.get()
        let harness = try await APIHarness.make(maxBodyBytes: Self.bodyLimit, extraRoots: [expired.root])
        let forgeries = try AppStoreForgeries(signer: harness.signer, stranger: AppStoreTestSigner(), expired: expired)
        try await harness.test { api in
            let a = try await api.tenant()
            let judge = RequestJudge(api: api)
            let operations = try Operation.catalog(openAPI: try await api.send(.get, "/openapi.json").text)
            #expect(operations.count >= 30, "the OpenAPI document lists only \(operations.count) operations")

            // The judge can see a write: a valid upload is accepted and records events.
            let before = try await judge.eventCount()
            let signed = try harness.signer.sign(AppStorePayloads.transaction(id: "1", original: "1"))
            let valid = try await api.send(
                .post, "/v1/users/alice/transactions", headers: a.secret,
                json: #"{"transactions":[{"signed_transaction":"\#(signed)"}]}"#)
            #expect(valid.status == .ok, "\(valid.text)")
            #expect(try await judge.eventCount() > before)

            // A spare key for the key routes, so that revoking it leaves the tenant's own keys working.
            let keyID = try #require(
                try await api.send(
                    .post, "/v1/admin/apps/\(a.appID)/keys", headers: APIClient.admin,
                    json: #"{"kind":"public"}"#
                ).string("id"))
            let values = [
                "app_id": a.appID, "account_id": a.accountID, "key_id": keyID, "user_id": "alice",
                "transaction_id": "1", "product_id": "coins", "invoice_id": "inv_none"
            ]
            let every = ReliabilityScale.pick(ci: 4, full: 1)  // wrong credentials: every n-th variant under CI
            var variants = 0
            for operation in operations {
                let requests = HostileRequests(operation: operation, values: values, limit: Self.bodyLimit)
                for (index, credential) in Credentials.all(for: operation, tenant: a).enumerated() {
                    let sample =
                        credential.isValid
                        ? requests.all : requests.all.enumerated().filter { ($0.offset + index) % every == 0 }.map(\.element)
                    for request in sample {
                        variants += 1
                        try await judge.judge(
                            operation.method, request.uri, headers: credential.headers, body: request.body,
                            mustReject: request.mustReject || !credential.isValid,
                            "\(operation) [\(credential.name)] \(request.name)")
                    }
                }
            }
            for request in try forgeries.requests(appID: a.appID) {
                let headers = request.uri == "/uploadReceipt" ? a.publicHeaders : request.uri.hasPrefix("/v1/users") ? a.secret : [:]
                try await judge.judge(
                    .post, request.uri, headers: headers, body: Array(request.body.utf8), mustReject: true,
                    "forged \(request.name)")
            }

            // Still serving, and still writing what is valid.
            #expect(try await api.send(.get, "/health").status == .ok)
            #expect(try await api.send(.put, "/v1/apps/\(a.appID)/products/coins", headers: a.secret, json: #"{"type":"consumable"}"#).status == .ok)
            ReliabilityScale.report(
                "hostile-input",
                [
                    "endpoints": operations.count, "requests": judge.sent, "refused": judge.refused,
                    "accepted": judge.accepted, "strings": HostileString.corpus.count,
                    "forgeries": try forgeries.requests(appID: a.appID).count
                ])
        }
    }
}
