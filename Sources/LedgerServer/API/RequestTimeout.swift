import Hummingbird
import LedgerConcurrency

/// Answers 504 when a handler takes longer than `timeout` (a stuck database, a body trickling in), so clients
/// are never left hanging. The handler's task is cancelled; work already handed to the database may still
/// complete, and since every write is idempotent a retry records nothing twice.
///
/// The answer does not wait for the cancelled work: a libpq call blocked on its thread (PostgreSQL restarting)
/// cannot be interrupted, and a task group would hold the 504 until it returned (13 s in the outage test). The
/// deadline's timer ends with the answer (`FirstAnswer.value(timeout:onExpiry:)`): one left sleeping for the
/// whole timeout after every request held its memory (peak RSS 515 MiB instead of 120 under the read benchmark).
/// Cancelling a task that has finished does nothing, so the work is cancelled after every answer.
func withRequestTimeout<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let answer = FirstAnswer<T>()
    let work = Task {
        do { answer.give(.success(try await body())) } catch { answer.give(.failure(error)) }
    }
    let result = await answer.value(timeout: timeout) {
        .failure(APIError(.gatewayTimeout, "timeout", "the request took longer than \(timeout); retry it (writes are idempotent)"))
    }
    // Cancelled only once the answer is settled: cancelled from the deadline, work that stops at once (a body read,
    // a sleep) gave its CancellationError first, and the client got a 503 "shutting down" instead of the 504.
    work.cancel()
    return try result.get()
}
