import Logging
import PostgresClient
import ServiceLifecycle

/// Keeps this instance's `TenancyCache` current while the server runs: LISTEN on `ledger_tenancy`, on a
/// connection of its own.
package struct TenancyCacheService: Service {
    let cache: TenancyCache
    let configuration: PostgresConfiguration
    let logger: Logger

    package init(api: LedgerAPI, logger: Logger) {
        self.cache = api.tenancyCache
        self.configuration = api.pool.configuration
        self.logger = logger
    }

    package func run() async throws {
        let listener = PostgresListener(configuration: configuration, channels: [TenancyCache.channel], logger: logger)
        await cancelWhenGracefulShutdown { await cache.follow(listener.events()) }
        await listener.stop()
    }
}
