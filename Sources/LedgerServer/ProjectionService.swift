import LedgerStore
import ServiceLifecycle

/// Keeps the projections current while the server runs; stops at graceful shutdown.
package struct ProjectionService: Service {
    let worker: ProjectionWorker

    package init(worker: ProjectionWorker) { self.worker = worker }

    package func run() async throws {
        await cancelWhenGracefulShutdown { await worker.run() }
    }
}
