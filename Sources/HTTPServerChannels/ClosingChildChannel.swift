import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// A server's connections (`inner`), each closed rather than lost when the server drops it before serving it.
///
/// Why: a connection accepted while the listener closes (a graceful shutdown, a test server stopping) is set up on
/// its own event loop and then handed to the server's accept stream; if that stream has finished in between, NIO
/// discards the connection (apple/swift-nio#2637). Hummingbird's connections are NIO async channels that must be
/// finished before they go, so NIO traps ("Deinited NIOAsyncWriter without calling finish()") and takes the whole
/// process down: a CI run of the test suite crashed so, and `ledger serve` had the same window at SIGTERM. Here each
/// connection's value is a `Connection`; one the server never handed to `handle` closes its channel and is handled on
/// the closed channel by a task of its own when it is released, so `inner` finishes whatever it set up.
package struct ClosingChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    package let inner: Inner

    package init(_ inner: Inner) { self.inner = inner }

    package final class Connection: ServerChildChannelValue {
        let value: Inner.Value
        let inner: Inner
        let logger: Logger
        let handled = Atomic<Bool>(false)

        init(value: Inner.Value, inner: Inner, logger: Logger) {
            self.value = value
            self.inner = inner
            self.logger = logger
        }

        package var channel: any Channel { value.channel }

        /// Marks the connection as served; true the first time only.
        func take() -> Bool { !handled.exchange(true, ordering: .acquiringAndReleasing) }

        deinit {
            guard take() else { return }
            let (value, inner, logger) = (self.value, self.inner, self.logger)
            logger.debug("closing a connection the server dropped before serving it")
            Task {
                try? await value.channel.close()
                await inner.handle(value: value, logger: logger)
            }
        }
    }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Connection> {
        inner.setup(channel: channel, logger: logger).map { [inner] value in Connection(value: value, inner: inner, logger: logger) }
    }

    package func handle(value connection: Connection, logger: Logger) async {
        guard connection.take() else { return }
        await inner.handle(value: connection.value, logger: logger)
    }
}
