import Foundation
import HTTPTypes
import LedgerServer
import LedgerServerTestSupport
import LedgerStore
import LedgerTenancy
import PostgresClient
import PostgresTestSupport
import Synchronization
import Testing

/// API keys, apps and catalogs are cached by each instance (`TenancyCache`): a change made on one instance reaches
/// the others by NOTIFY, and the next read on the instance that made it sees it.
@Suite struct TenancyCacheTests {
    /// Two instances on one database, the second following `ledger_tenancy` as `ledger serve` does. Events of its
    /// listener arrive in `events`, each once the cache applied it.
    struct TwoInstances {
        let first: APIHarness
        let second: APIHarness
        let events: AsyncStream<ListenerEvent>
        let listener: PostgresListener
        let following: Task<Void, Never>

        static func make() async throws -> TwoInstances {
            let database = try await TestDatabase.makeDatabase(prefix: "tenancy_cache")
            let first = try await APIHarness.make(database: database)
            let second = try await APIHarness.make(database: database)
            let listener = PostgresListener(configuration: second.pool.configuration, channels: [TenancyCache.channel])
            let (events, observer) = AsyncStream<ListenerEvent>.makeStream()
            let cache = second.api.tenancyCache
            let following = Task { await cache.follow(listener.events()) { observer.yield($0) } }
            return TwoInstances(first: first, second: second, events: events, listener: listener, following: following)
        }

        /// Runs `body` with a client of each instance and the second's listener events (once it listens), then
        /// stops the listener.
        func test(_ body: @escaping @Sendable (APIClient, APIClient, inout AsyncStream<ListenerEvent>.Iterator) async throws -> Void)
            async throws
        {
            let events = events
            try await first.test { a in
                try await second.test { b in
                    var iterator = events.makeAsyncIterator()
                    try #require(await iterator.next() == .connected)
                    try await body(a, b, &iterator)
                }
            }
            await listener.stop()
            following.cancel()
        }
    }

    /// Reads the second instance's listener events until `table`'s notification has been applied, after a marker
    /// sent now: notifications of earlier writes (creating the tenant) are passed over.
    static func waitForNotification(
        of table: String, after write: () async throws -> Void, pool: PostgresPool,
        events: inout AsyncStream<ListenerEvent>.Iterator
    ) async throws {
        let marker = "marker-\(UUID().uuidString)"
        try await pool.query("SELECT pg_notify(\(TenancyCache.channel), \(marker))")
        while let event = await events.next(), event != .notification(channel: TenancyCache.channel, payload: marker) {}
        try await write()
        while let event = await events.next(), event != .notification(channel: TenancyCache.channel, payload: table) {}
    }

    /// Revokes the tenant's secret key through the admin API.
    static func revokeSecretKey(of tenant: APIClient.Tenant, through api: APIClient) async throws {
        let keys = try await api.send(.get, "/v1/admin/apps/\(tenant.appID)/keys", headers: APIClient.admin).array("keys")
        let secretID = try #require(keys.first { $0["kind"] as? String == "secret" }?["id"] as? String)
        #expect(try await api.send(.delete, "/v1/admin/apps/\(tenant.appID)/keys/\(secretID)", headers: APIClient.admin).status == .ok)
    }

    @Test(.timeLimit(.minutes(10))) func aKeyRevokedOnOneInstanceIsRefusedOnAnother() async throws {
        let instances = try await TwoInstances.make()
        let pool = instances.first.pool
        try await instances.test { a, b, events in
            let tenant = try await a.tenant()
            let products = "/v1/apps/\(tenant.appID)/products"
            #expect(try await b.send(.get, products, headers: tenant.secret).status == .ok)  // cached by the second
            try await Self.waitForNotification(
                of: "api_keys", after: { try await Self.revokeSecretKey(of: tenant, through: a) },
                pool: pool, events: &events)
            let refused = try await b.send(.get, products, headers: tenant.secret)
            #expect(refused.status == .unauthorized)
        }
    }

    @Test(.timeLimit(.minutes(10))) func aCatalogChangeIsSeenByTheNextReadOnEveryInstance() async throws {
        let instances = try await TwoInstances.make()
        let pool = instances.first.pool
        let signed = try UserRoutesTests.signed(instances.first)
        let first = instances.first
        try await instances.test { a, b, events in
            let tenant = try await a.tenant()
            func define(_ entitlement: String) async throws {
                let put = try await a.send(
                    .put, "/v1/apps/\(tenant.appID)/products/monthly", headers: tenant.secret,
                    json: #"{"type":"auto_renewable","subscription_group":"main","entitlements":["\#(entitlement)"]}"#)
                #expect(put.status == .ok)
            }
            func entitlements(_ client: APIClient) async throws -> [String?] {
                try await client.send(.get, "/v1/users/alice", headers: tenant.secret).array("entitlements").map { $0["id"] as? String }
            }
            try await define("pro")
            let upload = try await a.send(
                .post, "/v1/users/alice/transactions", headers: tenant.secret,
                json: UserRoutesTests.upload([signed.subscription]))
            #expect(upload.status == .ok, "\(upload.text)")
            try await first.project()
            #expect(try await entitlements(a) == ["pro"])
            #expect(try await entitlements(b) == ["pro"])
            try await Self.waitForNotification(of: "products", after: { try await define("premium") }, pool: pool, events: &events)
            #expect(try await entitlements(a) == ["premium"])  // the instance that made the change
            #expect(try await entitlements(b) == ["premium"])  // another one, told by NOTIFY
        }
    }

    /// While the listener is connected values live longer (notifications drop them); when its connection fails,
    /// everything cached is dropped at once and values live a second again.
    @Test func aFailedListenerDropsTheCacheAndShortensItsLifetimes() async throws {
        let harness = try await APIHarness.make()
        let pool = harness.pool
        try await harness.test { api in
            let tenant = try await api.tenant()
            let clock = Mutex(ContinuousClock.now)
            let cache = TenancyCache(
                tenancy: TenancyStore(pool: pool), timeToLive: .seconds(10), fallbackTimeToLive: .seconds(1),
                now: { clock.withLock { $0 } })
            // A listener of the test's own making, so no notification reaches this cache unless the test sends it.
            let (events, listener) = AsyncStream<ListenerEvent>.makeStream()
            let (applied, observer) = AsyncStream<ListenerEvent>.makeStream()
            let following = Task { await cache.follow(events) { observer.yield($0) } }
            var appliedEvents = applied.makeAsyncIterator()
            listener.yield(.connected)
            #expect(await appliedEvents.next() == .connected)
            #expect(try await cache.key(tenant.secretKey) != nil)
            try await Self.revokeSecretKey(of: tenant, through: api)
            clock.withLock { $0 += .seconds(5) }
            #expect(try await cache.key(tenant.secretKey) != nil)  // still cached: no notification came
            listener.yield(.disconnected)
            #expect(await appliedEvents.next() == .disconnected)
            #expect(try await cache.key(tenant.secretKey) == nil)  // dropped with everything else
            listener.finish()
            await following.value
        }
    }

    /// Without its listener (a lost notification), a cached key is still refused once its fallback time to live (a
    /// second) is over, also by the lookup that answers without reading the database.
    @Test func aCachedKeyOutlivesItsRevocationByAtMostItsTimeToLive() async throws {
        let harness = try await APIHarness.make()
        let pool = harness.pool
        try await harness.test { api in
            let tenant = try await api.tenant()
            let clock = Mutex(ContinuousClock.now)
            let cache = TenancyCache(tenancy: TenancyStore(pool: pool), fallbackTimeToLive: .seconds(1), now: { clock.withLock { $0 } })
            #expect(cache.cachedKeyAndApp(tenant.secretKey) == nil)
            #expect(try await cache.key(tenant.secretKey)?.appID == tenant.appID)
            // What authentication answers without a deadline of its own: the key and its app, both cached.
            #expect(cache.cachedKeyAndApp(tenant.secretKey) == nil)
            #expect(try await cache.app(id: tenant.appID) != nil)
            #expect(cache.cachedKeyAndApp(tenant.secretKey)?.1.id == tenant.appID)
            try await Self.revokeSecretKey(of: tenant, through: api)
            #expect(try await cache.key(tenant.secretKey) != nil)  // answered from memory, not the database
            clock.withLock { $0 += .milliseconds(999) }
            #expect(try await cache.key(tenant.secretKey) != nil)
            #expect(cache.cachedKeyAndApp(tenant.secretKey) != nil)
            clock.withLock { $0 += .milliseconds(1) }
            #expect(cache.cachedKeyAndApp(tenant.secretKey) == nil)
            #expect(try await cache.key(tenant.secretKey) == nil)
            #expect(try await api.send(.get, "/v1/apps/\(tenant.appID)/products", headers: tenant.secret).status == .unauthorized)
        }
    }
}
