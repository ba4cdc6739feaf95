import AppStoreSamples
import Foundation
import HTTPTypes
import LedgerServerTestSupport
import Testing

/// Issue 8 item 6: every credential of app A against every operation (from the served OpenAPI document) aimed at
/// app B's data — B's app and account ids, B's user, purchase, product, key and invoice. Each is refused, or, where
/// the request is read in A's own scope (a user id is per app), answered without any of B's data; nothing of B's
/// is ever written.
@Suite struct IsolationMatrixTests {
    @Test(.timeLimit(.minutes(10))) func noCredentialOfAppAReachesAppB() async throws {
        let harness = try await APIHarness.make()
        try await harness.test { api in
            let world = try await TwoTenants.make(api)
            let operations = try Operation.catalog(openAPI: try await api.send(.get, "/openapi.json").text).filter { $0.security != .none }
            let judge = RequestJudge(api: api)
            let bEventsBefore = try await world.eventCount(app: world.b.appID)
            var pairs = 0
            for operation in operations {
                for credential in world.credentialsOfA {
                    let uri = operation.uri(
                        world.valuesOfB,
                        query: operation.queryParameters.compactMap { name in
                            world.queryOfB[name].map {
                                (
                                    name,
                                    $0
                                )
                            }
                        })
                    let body = world.body(for: operation)
                    // The admin API and anything naming B's app by id is refused outright; user-scoped requests are
                    // A's own scope (A's user "bob"), where a 4xx or an answer without B's data are both right.
                    let outright = operation.security == .admin || operation.pathParameters.contains("app_id")
                    let refusal: Set<Int> = outright ? [401, 403, 404] : Set(400..<500)
                    let response = try await judge.judge(
                        operation.method, uri, headers: credential.headers,
                        body: body.map { Array($0.utf8) },
                        mustReject: outright || credential.mustBeRefused, refusal: refusal,
                        "\(operation) as \(credential.name)")
                    // B's data the request did not itself name (an error may echo the path back).
                    for marker in world.markersOfB where !uri.contains(marker) && body?.contains(marker) != true {
                        #expect(
                            !response.text.contains(marker),
                            "\(operation) as \(credential.name) shows B's \(marker): \(response.text.prefix(300))")
                    }
                    pairs += 1
                }
            }
            #expect(try await world.eventCount(app: world.b.appID) == bEventsBefore, "a request with A's credentials wrote to B")
            #expect(try await api.send(.get, "/v1/apps/\(world.b.appID)/products", headers: world.b.secret).array("products").count == 1)
            #expect(try await api.send(.get, "/v1/users/bob/unconsumed", headers: world.b.secret).array("unconsumed").count == 1)
            #expect(
                try await api.send(.get, "/v1/admin/apps/\(world.b.appID)/keys", headers: APIClient.admin).array("keys")
                    .allSatisfy { $0["revoked_at"] == nil || $0["revoked_at"] is NSNull })
            ReliabilityScale.report(
                "isolation",
                [
                    "endpoints": operations.count, "credentials": world.credentialsOfA.count,
                    "requests": pairs, "refused": judge.refused, "answered-in-own-scope": judge.accepted
                ])
        }
    }
}
