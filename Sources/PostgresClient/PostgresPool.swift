import Logging
import NIOPosix
import Synchronization
import Tracing

/// A bounded pool of libpq connections with a thread pool of its own, one thread per connection, so blocking
/// libpq calls never run on an event loop nor on NIO's shared singleton pool (Hummingbird's file I/O uses it).
///
/// Use it through `withConnection` / `transaction`: the body runs synchronously on one pool thread with exclusive
/// use of one connection. A connection left broken or inside a transaction is closed instead of reused, so a
/// server restart costs each pooled connection one failed call, and the next call opens a fresh one.
public final class PostgresPool: Sendable {
    enum Lease: Sendable {
        case connection(PostgresConnection)
        case create
    }

    public let configuration: PostgresConfiguration
    public let size: Int
    private let threadPool: NIOThreadPool
    private let state: Mutex<ConnectionPoolState<PostgresConnection, CheckedContinuation<Lease, any Error>>>
    private let logger: Logger

    public init(configuration: PostgresConfiguration, size: Int = 4, logger: Logger = Logger(label: "ledger.postgres")) {
        self.configuration = configuration
        self.size = max(1, size)
        self.logger = logger
        self.threadPool = NIOThreadPool(numberOfThreads: max(1, size))
        self.state = Mutex(ConnectionPoolState(maximumConnections: max(1, size)))
        threadPool.start()
    }

    /// Runs `body` with exclusive use of one connection, on a thread of the pool's own thread pool.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let connection = try await lease()
        // The caller's trace (and a tracer it scoped with `withTracer`) follows the body onto the pool thread, where
        // its statements' spans join it. Outside a trace nothing is carried.
        let context = InstrumentationContext.current
        let tracer = context == nil ? nil : InstrumentationSystem.tracer
        do {
            let value = try await threadPool.runIfActive {
                guard let context, let tracer else { return try body(connection) }
                return try withTracer(tracer) { try InstrumentationContext.withValue(context) { try body(connection) } }
            }
            release(connection)
            return value
        } catch {
            // A server that has become a standby (a demoted primary after a failover) refuses writes on connections
            // that still work: such a connection is closed, and the next one finds the primary
            // (`target_session_attrs=read-write` in a multi-host URL).
            release(connection, reusable: (error as? PostgresError)?.isReadOnlyServer != true)
            throw error
        }
    }

    /// Runs `body` inside one transaction on one connection.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withConnection { connection in try connection.transaction(body) }
    }

    /// Convenience for one statement.
    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        try await withConnection { connection in try connection.query(query) }
    }

    /// Convenience for one statement run often: prepared once per connection (`PostgresConnection.query(prepared:)`).
    @discardableResult
    public func query(prepared query: PostgresQuery) async throws -> PostgresRows {
        try await withConnection { connection in try connection.query(prepared: query) }
    }

    /// Closes idle connections, fails waiters, and stops the thread pool. Leased connections close when returned.
    /// Connections lent out now, and callers waiting for one (the service's pool gauges).
    public var usage: (inUse: Int, waiting: Int) {
        state.withLock { ($0.openCount - $0.idle.count, $0.waiters.count) }
    }

    public func shutdown() async {
        let (idle, waiters) = state.withLock { $0.shutdown() }
        waiters.forEach { $0.resume(throwing: PostgresError.poolClosed) }
        _ = idle  // dropping the last references closes them (PQfinish in the handle's deinit)
        try? await threadPool.shutdownGracefully()
    }

    private func lease() async throws -> PostgresConnection {
        let lease: Lease = try await withCheckedThrowingContinuation { continuation in
            switch state.withLock({ $0.acquire(waiter: continuation) }) {
            case .use(let connection): continuation.resume(returning: .connection(connection))
            case .create: continuation.resume(returning: .create)
            case .wait: break
            case .fail: continuation.resume(throwing: PostgresError.poolClosed)
            }
        }
        switch lease {
        case .connection(let connection):
            return connection
        case .create:
            do {
                let configuration = configuration
                return try await threadPool.runIfActive { try PostgresConnection.connect(configuration) }
            } catch {
                if let next = state.withLock({ $0.creationFailed() }) { next.resume(returning: .create) }
                logger.warning("opening a PostgreSQL connection failed", metadata: ["error": "\(error)"])
                throw error
            }
        }
    }

    private func release(_ connection: PostgresConnection, reusable reusableAfterError: Bool = true) {
        let reusable = reusableAfterError && connection.isReusable
        switch state.withLock({ $0.release(connection, reusable: reusable) }) {
        case .keepIdle, .closeAfterShutdown:
            break
        case .handOver(let connection, let waiter):
            waiter.resume(returning: .connection(connection))
        case .close(_, let waiter):
            logger.debug("closing a PostgreSQL connection that is broken or was left inside a transaction")
            waiter?.resume(returning: .create)
        }
    }
}
