import LedgerDomain
import PostgresClient
import Testing
@testable import LedgerStore

/// The fan-out's batches, driven one at a time.
@Suite struct WebhookFanOutTests {
    private static func fanOutCheckpoint(_ pool: PostgresPool) async throws -> LogCheckpoint? {
        try await pool.query("SELECT transaction_id, position FROM ledger.webhook_fanout").first
            .map { LogCheckpoint(transactionID: try $0.decode(UInt64.self, at: 0), position: try $0.decode(Int64.self, at: 1)) }
    }

    /// With no enabled endpoint, one batch moves the checkpoint to the projections' frontier without reading the
    /// events (none could make a delivery); once an endpoint is enabled, batches read the events again.
    @Test func withoutAnEnabledEndpointABatchSkipsToTheFrontierWithoutReadingEvents() async throws {
        let fixture = try await StoreFixture.make()
        let pool = fixture.store.pool
        let tenancy = TenancyStore(pool: pool)
        let account = try await tenancy.createAccount(name: "Acme")
        let app = try await tenancy.createApp(.init(accountID: account.id, name: "Pro", bundleID: "com.acme.pro"))
        for index in 0..<5 {
            _ = try await fixture.store.append(app: app.id, stream: "stream-\(index)", events: [event("before-\(index)")])
        }
        let worker = ProjectionWorker(pool: pool, runners: ProjectionCatalog.runners())
        _ = try await worker.catchUpThroughNow()
        let newest = try await fixture.store.readForward(after: .start, limit: 100).last?.checkpoint
        let fanOut = WebhookFanOut(pool: pool, batchSize: 2, render: { _, _ in "{}" })

        let skipped = try await pool.withConnection { try fanOut.batch(on: $0) }
        #expect(skipped == (0, 0) as (Int, Int), "a batch without endpoints read events")
        #expect(try await Self.fanOutCheckpoint(pool) == newest, "the checkpoint is not at the frontier")

        // An endpoint, then two new events: a batch reads them.
        _ = try await WebhookStore(pool: pool).createEndpoint(
            app: app.id, url: "https://hooks.example.com/ledger", description: nil, eventTypes: [], environments: ["production"])
        for index in 0..<2 {
            _ = try await fixture.store.append(app: app.id, stream: "stream-after-\(index)", events: [event("after-\(index)")])
        }
        _ = try await worker.catchUpThroughNow()
        let read = try await pool.withConnection { try fanOut.batch(on: $0) }
        #expect(read.0 == 2, "with an endpoint, a batch reads the new events")
        #expect(try await Self.fanOutCheckpoint(pool) == fixture.store.readForward(after: .start, limit: 100).last?.checkpoint)
        await fixture.close()
    }
}
