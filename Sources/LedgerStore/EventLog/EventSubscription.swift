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
    /// Wakes on appends (`AppendWakeUp`) and, as a fallback, every `pollInterval`.
    public func subscribe(
        app appID: String? = nil, after checkpoint: LogCheckpoint = .start, batchSize: Int = 500,
        pollInterval: Duration = .seconds(1)
    ) -> AsyncThrowingStream<RecordedEvent, any Error> {
        let wakeUp = AppendWakeUp(configuration: pool.configuration)
        let (stream, continuation) = AsyncThrowingStream<RecordedEvent, any Error>.makeStream()
        let reading = Task {
            var position = checkpoint
            do {
                while !Task.isCancelled {
                    let batch = try await readForward(app: appID, after: position, limit: batchSize)
                    for event in batch {
                        continuation.yield(event)
                        position = event.checkpoint
                    }
                    if batch.count < batchSize { await wakeUp.wait(timeout: pollInterval) }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in
            reading.cancel()
            Task { await wakeUp.stop() }
        }
        return stream
    }
}
