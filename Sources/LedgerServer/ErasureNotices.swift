import LedgerPrivacy
import LedgerStore
import Logging
import PostgresClient
import ServiceLifecycle

/// What an erasure on another instance means here (`UserErasure.channel`): the user's live streams end, the status cache
/// drops them, and every data key this process holds is forgotten (the user's and their purchases' may be among them). A listener that was away
/// may have missed notices, so it forgets the keys whenever it (re)connects too.
package struct ErasureNotices: Service {
    let live: LiveHub
    let statusCache: StatusCache
    let identities: IdentityStore
    let configuration: PostgresConfiguration
    let logger: Logger

    package init(api: LedgerAPI, logger: Logger) {
        (self.live, self.statusCache, self.identities) = (api.live, api.statusCache, api.identities)
        (self.configuration, self.logger) = (api.pool.configuration, logger)
    }

    package func run() async throws {
        let listener = PostgresListener(configuration: configuration, channels: [UserErasure.channel], logger: logger)
        await cancelWhenGracefulShutdown { await follow(listener.events()) }
        await listener.stop()
    }

    /// Applies each notice of `events` (what `run` listens to), then `observe`s it.
    package func follow(_ events: AsyncStream<ListenerEvent>, observe: @Sendable (ListenerEvent) -> Void = { _ in }) async {
        for await event in events {
            switch event {
            case .notification(_, let payload):
                let parts = payload.split(separator: " ", maxSplits: 1).map(String.init)
                if parts.count == 2 {
                    live.end(app: parts[0], pseudonym: parts[1])
                    statusCache.forget(app: parts[0], pseudonym: parts[1])
                }
                identities.forgetDataKeys()
            case .connected, .disconnected:
                identities.forgetDataKeys()
                statusCache.reset()
            }
            observe(event)
        }
    }
}
