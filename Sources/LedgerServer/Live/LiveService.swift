import ServiceLifecycle

/// Runs the live streams' hub while the server runs; at graceful shutdown it ends every stream.
package struct LiveService: Service {
    let hub: LiveHub

    package init(hub: LiveHub) { self.hub = hub }

    package func run() async throws {
        await cancelWhenGracefulShutdown { await hub.run() }
    }
}
