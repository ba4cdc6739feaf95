import LedgerStore
import ServiceLifecycle

/// Keeps the projections current while the server runs; stops at graceful shutdown.
public struct ProjectionService: Service {
    let worker: ProjectionWorker

    public init(worker: ProjectionWorker) { self.worker = worker }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await worker.run() }
    }
}
