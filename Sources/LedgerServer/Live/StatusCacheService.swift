import LedgerStore
import ServiceLifecycle

/// Keeps this instance's status cache current while the server runs (`StatusCache.run`).
package struct StatusCacheService: Service {
    let cache: StatusCache

    package init(cache: StatusCache) { self.cache = cache }

    package func run() async throws {
        await cancelWhenGracefulShutdown { await cache.run() }
    }
}
