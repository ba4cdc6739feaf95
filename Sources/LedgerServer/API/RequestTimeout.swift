import Hummingbird
import Synchronization

/// Answers 504 when a handler takes longer than `timeout` (a stuck database, a body trickling in), so clients
/// are never left hanging. The handler's task is cancelled; work already handed to the database may still
/// complete, and since every write is idempotent a retry records nothing twice.
///
/// The answer does not wait for the cancelled work: a libpq call blocked on its thread (PostgreSQL restarting)
/// cannot be interrupted, and a task group would hold the 504 until it returned (13 s in the outage test).
func withRequestTimeout(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> Response) async throws -> Response {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
        let answered = Mutex(false)
        let answer: @Sendable (Result<Response, any Error>) -> Void = { result in
            let first = answered.withLock { done in
                defer { done = true }
                return !done
            }
            if first { continuation.resume(with: result) }
        }
        let work = Task {
            do { answer(.success(try await body())) } catch { answer(.failure(error)) }
        }
        Task {
            // When the work answered first, this late call is ignored (`answer` keeps only the first).
            try? await Task.sleep(for: timeout)
            work.cancel()
            answer(.failure(APIError(.gatewayTimeout, "timeout", "the request took longer than \(timeout); retry it (writes are idempotent)")))
        }
    }
}
