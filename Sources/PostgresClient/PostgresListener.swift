import CLibPQ
import Foundation
import Glibc
import Logging
import NIOPosix
import Synchronization

/// What a listener reports: a notification, that it (re)connected, after which notifications sent while it
/// was away are lost and the consumer should re-read what it watches, or that its connection failed (it retries).
public enum ListenerEvent: Sendable, Equatable {
    case connected
    case notification(channel: String, payload: String)
    case disconnected
}

/// LISTEN on one dedicated connection, on a thread of its own that waits for the socket to become readable.
/// Reconnects (every `retryInterval`) when the server goes away, and reports `.connected` each time.
public final class PostgresListener: Sendable {
    private let configuration: PostgresConfiguration
    private let channels: [String]
    private let thread: NIOThreadPool
    private let stopped = Atomic<Bool>(false)
    private let logger: Logger

    public init(configuration: PostgresConfiguration, channels: [String], logger: Logger = Logger(label: "ledger.listen")) {
        self.configuration = configuration
        self.channels = channels
        self.logger = logger
        self.thread = NIOThreadPool(numberOfThreads: 1)
    }

    /// Starts listening; the stream ends when `stop()` is called.
    public func events(retryIntervalMilliseconds: Int32 = 1000) -> AsyncStream<ListenerEvent> {
        let (stream, continuation) = AsyncStream<ListenerEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        thread.start()
        let configuration = configuration
        let statements = channels.map { "LISTEN \(PostgresIdentifier.quote($0))" }
        thread.submit { [self] _ in
            while !stopped.load(ordering: .acquiring) {
                do {
                    let connection = try PostgresConnection.connect(configuration)
                    for statement in statements { try connection.execute(statement) }
                    continuation.yield(.connected)
                    while !stopped.load(ordering: .acquiring) {
                        for event in try connection.waitForNotifications(timeoutMilliseconds: 250) {
                            continuation.yield(event)
                        }
                    }
                } catch {
                    continuation.yield(.disconnected)
                    logger.warning("LISTEN connection failed; retrying", metadata: ["error": "\(error)"])
                    var slice = pollfd()
                    _ = poll(&slice, 0, retryIntervalMilliseconds)  // a pause between reconnection attempts
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { [self] _ in stopped.store(true, ordering: .releasing) }
        return stream
    }

    public func stop() async {
        stopped.store(true, ordering: .releasing)
        try? await thread.shutdownGracefully()
    }
}

extension PostgresConnection {
    /// Waits up to `timeoutMilliseconds` for the socket to become readable, then returns pending notifications.
    /// Throws `connectionLost` when the server is gone.
    func waitForNotifications(timeoutMilliseconds: Int32) throws(PostgresError) -> [ListenerEvent] {
        try handle.withLock { (handle: inout ConnectionHandle) throws(PostgresError) -> [ListenerEvent] in
            let connection = handle.pointer
            var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
            if descriptor.fd < 0 { throw .connectionLost(message: "the LISTEN connection has no socket") }
            _ = poll(&descriptor, 1, timeoutMilliseconds)
            guard PQconsumeInput(connection) == 1, PQstatus(connection) == CONNECTION_OK else {
                throw Self.connectionError(connection)
            }
            var events: [ListenerEvent] = []
            while let notify = PQnotifies(connection) {
                let channel = String(cString: notify.pointee.relname)
                let payload = notify.pointee.extra.map { String(cString: $0) } ?? ""
                PQfreemem(notify)
                events.append(.notification(channel: channel, payload: payload))
            }
            return events
        }
    }
}
