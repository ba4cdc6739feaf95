import LedgerConcurrency
import PostgresClient

/// Wakes one reader of a database's appends (a projection worker, a subscription): this process's appends at once
/// (`LocalAppendSignals`), other processes' through LISTEN on `EventStore.notificationChannel`. The reader waits
/// with a timeout all the same: notifications are lost while a listener reconnects.
/// `stop()` before dropping it: it holds a LISTEN connection.
package final class AppendWakeUp: Sendable {
    private let signal: WakeSignal
    private let database: String
    private let listener: PostgresListener
    private let listening: Task<Void, Never>

    package init(configuration: PostgresConfiguration) {
        let signal = WakeSignal()
        self.signal = signal
        database = configuration.connectionString
        let listener = PostgresListener(configuration: configuration, channels: [EventStore.notificationChannel])
        self.listener = listener
        listening = Task {
            for await _ in listener.events() { signal.fire() }
        }
        LocalAppendSignals.register(signal, database: database)
    }

    /// Returns when an append was announced since the last wait, or after `timeout`.
    package func wait(timeout: Duration) async {
        await signal.wait(timeout: timeout)
    }

    /// Stops listening and closes the LISTEN connection.
    package func stop() async {
        LocalAppendSignals.unregister(signal, database: database)
        listening.cancel()
        await listener.stop()
    }
}
