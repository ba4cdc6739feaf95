import LedgerStore
import LedgerTenancy
import PostgresClient
import Synchronization
import UTCTime

/// API keys, apps and catalogs, which every request looks up, kept in memory so that a status read needs one
/// query (the user's states) and one trip to the database's threads.
///
/// A change reaches every instance at once: triggers on `ledger.api_keys`, `ledger.apps` and `ledger.products`
/// (`schema/008_tenancy_notify.sql`) NOTIFY `ledger_tenancy` with the table's name, whoever wrote it (this instance,
/// another one, the CLI), and `follow` drops what that table cached. While the listener is connected, values live
/// `timeToLive` (10 s); without it (not started, or its connection failed: everything is dropped then) they live
/// `fallbackTimeToLive` (1 s), so a notification lost while the listener reconnects leaves a revoked key usable
/// for at most a second. (A connection that dies without the listener noticing is bounded by `timeToLive`.) A
/// change made through this instance is dropped before its answer goes out, so the next read sees it.
package final class TenancyCache: Sendable {
    /// The NOTIFY channel of tenancy changes; the payload names the table.
    package static let channel = "ledger_tenancy"

    package enum Table: String, CaseIterable {
        case apiKeys = "api_keys"
        case apps
        case products
    }

    private let tenancy: TenancyStore
    private let now: @Sendable () -> ContinuousClock.Instant
    private let keys: Mutex<ExpiringCache<String, APIKeyRecord>>
    private let apps: Mutex<ExpiringCache<String, AppRecord>>
    private let catalogs: Mutex<ExpiringCache<String, [ProductRecord]>>
    private let timeToLive: Duration
    private let fallbackTimeToLive: Duration
    /// Whether the listener is connected (`follow`): notifications then arrive as changes commit.
    private let listening = Atomic<Bool>(false)

    package init(
        tenancy: TenancyStore, timeToLive: Duration = .seconds(10), fallbackTimeToLive: Duration = .seconds(1),
        capacity: Int = 10_000, now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.tenancy = tenancy
        self.now = now
        self.timeToLive = timeToLive
        self.fallbackTimeToLive = fallbackTimeToLive
        keys = Mutex(ExpiringCache(capacity: capacity))
        apps = Mutex(ExpiringCache(capacity: capacity))
        catalogs = Mutex(ExpiringCache(capacity: capacity))
    }

    /// The live (unrevoked) key record of a presented key, or nil. Unknown keys are not cached: they are looked up
    /// each time, so a key created on another instance works at once.
    package func key(_ presented: String) async throws -> APIKeyRecord? {
        try await cached(presented, in: keys) { try await tenancy.authenticate(key: presented) }
    }

    package func app(id: String) async throws -> AppRecord? {
        try await cached(id, in: apps) { try await tenancy.app(id: id) }
    }

    /// The key record and its app when both are cached and fresh (nil otherwise: `key` and `app` read the database):
    /// answered without suspending, so an authenticated request on a warm cache needs no deadline of its own.
    package func cachedKeyAndApp(_ presented: String) -> (APIKeyRecord, AppRecord)? {
        let instant = now()
        guard let key = keys.withLock({ $0.value(for: presented, now: instant) }),
            let app = apps.withLock({ $0.value(for: key.appID, now: instant) })
        else { return nil }
        return (key, app)
    }

    /// The app's products (its catalog).
    package func products(app appID: String) async throws -> [ProductRecord] {
        try await cached(appID, in: catalogs) { try await tenancy.products(app: appID) } ?? []
    }

    /// Drops what `table` cached (unknown names: everything).
    package func invalidate(_ table: Table?) {
        switch table {
        case .apiKeys: keys.withLock { $0.invalidate() }
        case .apps: apps.withLock { $0.invalidate() }
        case .products: catalogs.withLock { $0.invalidate() }
        case nil: Table.allCases.forEach(invalidate)
        }
    }

    /// Applies a listener's events until it stops: a notification drops its table; a (re)connection drops
    /// everything (notifications sent meanwhile were lost) and values live `timeToLive` again; a failed connection
    /// drops everything and values live `fallbackTimeToLive` until it is back. `observe` sees each event once applied.
    package func follow(_ events: AsyncStream<ListenerEvent>, observe: @Sendable (ListenerEvent) -> Void = { _ in }) async {
        for await event in events {
            switch event {
            case .connected:
                listening.store(true, ordering: .sequentiallyConsistent)
                invalidate(nil)
            case .notification(_, let table):
                invalidate(Table(rawValue: table))
            case .disconnected:
                listening.store(false, ordering: .sequentiallyConsistent)
                invalidate(nil)
            }
            observe(event)
        }
        listening.store(false, ordering: .sequentiallyConsistent)
        invalidate(nil)
    }

    private func cached<Value: Sendable>(
        _ key: String, in cache: borrowing Mutex<ExpiringCache<String, Value>>,
        read: () async throws -> Value?
    ) async throws -> Value? {
        let (hit, generation) = cache.withLock { ($0.value(for: key, now: now()), $0.generation) }
        if let hit { return hit }
        guard let value = try await read() else { return nil }
        let lifetime = listening.load(ordering: .sequentiallyConsistent) ? timeToLive : fallbackTimeToLive
        cache.withLock { $0.store(value, for: key, readAt: generation, now: now(), timeToLive: lifetime) }
        return value
    }
}
