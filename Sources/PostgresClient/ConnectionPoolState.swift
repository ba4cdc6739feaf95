/// The pool's bookkeeping as a pure state machine: each event returns the action the pool must perform, so the
/// rules (bounded size, FIFO waiters, broken connections replaced, shutdown) are tested without a database.
struct ConnectionPoolState<Connection, Waiter> {
    enum AcquireAction {
        case use(Connection)
        /// Capacity is free: the caller opens a new connection (and reports `connectionCreated` / `creationFailed`).
        case create
        /// The waiter was queued and is resumed by a later release.
        case wait
        case fail
    }

    enum ReleaseAction {
        case keepIdle
        case handOver(Connection, to: Waiter)
        /// The connection was broken: drop it; a queued waiter, if any, opens a new one in its place.
        case close(Connection, createFor: Waiter?)
        /// The pool is shutting down: close this connection.
        case closeAfterShutdown(Connection)
    }

    let maximumConnections: Int
    private(set) var idle: [Connection] = []
    /// Connections that exist or are being opened (idle + leased + opening).
    private(set) var openCount = 0
    private(set) var waiters: [Waiter] = []
    private(set) var isShutdown = false

    init(maximumConnections: Int) {
        precondition(maximumConnections > 0, "a pool needs at least one connection")
        self.maximumConnections = maximumConnections
    }

    mutating func acquire(waiter: Waiter) -> AcquireAction {
        if isShutdown { return .fail }
        if let connection = idle.popLast() { return .use(connection) }
        if openCount < maximumConnections {
            openCount += 1
            return .create
        }
        waiters.append(waiter)
        return .wait
    }

    /// Opening a connection failed: give the slot back; the next waiter (if any) tries to open one itself.
    mutating func creationFailed() -> Waiter? {
        openCount -= 1
        guard !waiters.isEmpty, !isShutdown else { return nil }
        openCount += 1
        return waiters.removeFirst()
    }

    mutating func release(_ connection: Connection, reusable: Bool) -> ReleaseAction {
        if isShutdown {
            openCount -= 1
            return .closeAfterShutdown(connection)
        }
        guard reusable else {
            if waiters.isEmpty {
                openCount -= 1
                return .close(connection, createFor: nil)
            }
            return .close(connection, createFor: waiters.removeFirst())
        }
        if !waiters.isEmpty { return .handOver(connection, to: waiters.removeFirst()) }
        idle.append(connection)
        return .keepIdle
    }

    /// Returns the idle connections to close and the waiters to fail.
    mutating func shutdown() -> (idle: [Connection], waiters: [Waiter]) {
        isShutdown = true
        let result = (idle, waiters)
        openCount -= idle.count
        idle = []
        waiters = []
        return result
    }
}
