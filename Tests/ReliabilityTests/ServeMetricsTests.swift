import AppStoreSamples
import Foundation
import Testing

/// `ledger serve`'s `/metrics` has the series of what is made before its router: swift-metrics binds a metric to the
/// backend in place when the metric is made, so one made before the Prometheus backend would count into nothing.
/// In a process of its own, as an operator runs it (in the test process another test has set the backend up first).
@Suite struct ServeMetricsTests {
    @Test(.timeLimit(.minutes(5))) func theStatusCachesAnswersAreCountedInServesMetrics() async throws {
        let signer = try AppStoreTestSigner()
        let (server, _) = try await ServerProcess.started(databasePrefix: "serve_metrics", signer: signer)
        defer { server.killNow() }
        let client = HTTPClient(base: server.baseURL, timeout: 30)
        let tenant = try await LedgerTenant.create(client)
        let history = try SubscriptionHistories(users: 1, seed: 61, signer: signer)
        _ = try await ReadReplicaTests.write(history.deliveries[0][0], tenant, client)
        let (path, headers) = ReadReplicaTests.ReadPath.user.request(history.users[0], tenant)
        for _ in 0..<3 {
            let read = try await client.send("GET", path, headers: headers)
            #expect(read.status == 200, "\(read.text)")
        }
        let metrics = try await client.send("GET", "/metrics").text
        let answers = metrics.split(separator: "\n").filter { $0.hasPrefix("ledger_status_cache_reads{") }
        let total = answers.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
        #expect(total == 3, "the status cache's three answers: \(answers)")
        #expect(answers.contains { $0.contains(#"answer="miss""#) }, "\(answers)")
        _ = await server.stop()
    }
}
