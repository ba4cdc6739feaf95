import LedgerConcurrency
import PostgresClient

extension EventStore {
    /// The NOTIFY channel appenders signal after each commit that appended events.
    public static let notificationChannel = "ledger_events"

    /// Tells listeners (projection workers, subscriptions, other instances) that new events were committed.
    /// Sent after the commit, outside the appending transaction: NOTIFY inside it would serialise all commits.
    public func notifyAppended(app appID: String) async {
        _ = try? await pool.query("SELECT pg_notify(\(Self.notificationChannel), \(appID))")
    }

    /// Every event after `checkpoint`, then new ones as they commit, in commit-safe order.
    /// Wakes on this process's appends (`LocalAppendSignals`), on NOTIFY for other processes', and, as a fallback
    /// (notifications are lost while a listener reconnects), every `pollInterval`.
    public func subscribe(app appID: String? = nil, after checkpoint: LogCheckpoint = .start, batchSize: Int = 500,
                          pollInterval: Duration = .seconds(1)) -> AsyncThrowingStream<RecordedEvent, any Error> {
        let listener = PostgresListener(configuration: pool.configuration, channels: [Self.notificationChannel])
        let signal = WakeSignal()
        let (stream, continuation) = AsyncThrowingStream<RecordedEvent, any Error>.makeStream()
        let listening = Task {
            for await _ in listener.events() { signal.fire() }
        }
        let database = pool.configuration.connectionString
        LocalAppendSignals.register(signal, database: database)
        let reading = Task {
            var position = checkpoint
            do {
                while !Task.isCancelled {
                    let batch = try await readForward(app: appID, after: position, limit: batchSize)
                    for event in batch {
                        continuation.yield(event)
                        position = event.checkpoint
                    }
                    if batch.count < batchSize { await signal.wait(timeout: pollInterval) }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in
            LocalAppendSignals.unregister(signal, database: database)
            reading.cancel()
            listening.cancel()
            Task { await listener.stop() }
        }
        return stream
    }
}
