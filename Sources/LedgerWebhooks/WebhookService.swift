import LedgerPrivacy
import LedgerStore
import LedgerTenancy
import Logging
import PostgresClient
import ServiceLifecycle

/// Sends webhooks while the server runs (`WebhookDispatcher`); stops at graceful shutdown, giving its endpoints up
/// to the other instances.
package struct WebhookService: Service {
    package let dispatcher: WebhookDispatcher

    /// Follows `progress` (this process's projection worker), so that a delivery is made as soon as the projections
    /// have applied its event.
    package init(pool: PostgresPool, identities: IdentityStore, settings: WebhookSettings, progress: ProjectionProgress, logger: Logger) {
        let dispatcher = WebhookDispatcher(
            pool: pool, identities: identities, settings: settings, render: WebhookPayload.render, logger: logger)
        progress.observe { dispatcher.wake() }
        self.dispatcher = dispatcher
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown { await dispatcher.run() }
    }
}
