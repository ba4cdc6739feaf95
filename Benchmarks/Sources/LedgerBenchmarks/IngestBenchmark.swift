import AppStoreSamples
import Foundation
import LedgerStore
import LedgerTenancy
import PostgresClient
import UTCTime

/// Signed V2 notifications (SUBSCRIBED, each a new subscription, production) posted once each over HTTP by wrk:
/// the whole path of `POST /v1/apps/{app}/notifications` — JWS and certificate-chain verification, the append, and
/// the projection the answer waits for (read-your-writes).
struct IngestBenchmark {
    let cluster: BenchCluster
    let server: ServerProcess
    let signer: AppStoreTestSigner
    let notifications: Int
    let seconds: Int
    /// A file of bodies already signed (`writeBodies`), posted instead of `notifications` new ones.
    var bodies: String? = nil

    func run(singleAppendPerSecond: Double) async throws -> Figure {
        let pool = cluster.pool(size: 1)
        defer { Task { await pool.shutdown() } }
        let tenancy = TenancyStore(pool: pool)
        let account = try await tenancy.createAccount(name: "bench ingest")
        let app = try await tenancy.createApp(.init(accountID: account.id, name: "ingest", bundleID: "com.example.app", appleAppID: 1234))
        let bodies = try self.bodies ?? Self.writeBodies(signer: signer, count: notifications)
        defer { if self.bodies == nil { try? FileManager.default.removeItem(atPath: bodies) } }
        let before = try await eventCount(pool)
        server.resetPeak()
        let result = try await WrkResult.run(baseURL: server.baseURL, seconds: seconds, connections: 32, environment: [
            "BENCH_MODE": "notifications", "BENCH_BODIES": bodies, "BENCH_PATH": "/v1/apps/\(app.id)/notifications",
        ])
        let appended = try await eventCount(pool) - before
        // The rate from the log itself: notifications recorded between the first and the last one (wrk may keep
        // the connections open a little after the last body, resending it as a duplicate).
        let span = try await pool.query("""
            SELECT count(*), (extract(epoch FROM max(recorded_at) - min(recorded_at)) * 1000000)::bigint
            FROM ledger.events WHERE app_id = \(app.id) AND event_type = 'appstore.notification'
            """).first
        let recorded = try span?.decode(Int64.self, at: 0) ?? 0
        let micros = try span?.decode(Int64?.self, at: 1) ?? 0
        let perSecond = micros > 0 ? Double(recorded - 1) / (Double(micros) / 1e6) : 0
        return Figure(name: "notification ingest", workload: "\(recorded) signed notifications over HTTP (wrk, 32 connections)",
                      value: perSecond, unit: "notifications/s", reference: "the ledger's single-event append above",
                      referenceValue: singleAppendPerSecond, target: "≥ 1,500 notifications/s, p99 ≤ 50 ms",
                      detail: ["p50 ms": result.p50Ms, "p99 ms": result.p99Ms, "non-200": Double(result.failures + result.socketErrors),
                               "events appended": Double(appended), "notifications recorded": Double(recorded), "server peak RSS MiB": server.peakRSSMiB()])
    }

    private func eventCount(_ pool: PostgresPool) async throws -> Int64 {
        try await pool.query("SELECT count(*) FROM ledger.events").first?.decode(Int64.self, at: 0) ?? 0
    }

    /// One `{"signedPayload": …}` per line, each a new subscription of its own user, in a new file; returns its path.
    static func writeBodies(signer: AppStoreTestSigner, count: Int) throws -> String {
        let path = NSTemporaryDirectory() + "ledger-bench-notifications-\(UUID().uuidString).jsonl"
        var text = ""
        for index in 0..<count {
            let id = "\(3_000_000_000 + index)"
            let transaction = AppStorePayloads.transaction(id: id, original: id, token: nil, environment: "Production")
            let payload = try signer.notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: AppStorePayloads.jan1,
                                                  transactionJSON: transaction, environment: "Production")
            text += #"{"signedPayload":""# + payload + "\"}\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
