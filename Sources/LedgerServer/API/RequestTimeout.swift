import Hummingbird
import Synchronization

/// Answers 504 when a handler takes longer than `timeout` (a stuck database, a body trickling in), so clients
/// are never left hanging. The handler's task is cancelled; work already handed to the database may still
/// complete, and since every write is idempotent a retry records nothing twice.
///
/// The answer does not wait for the cancelled work: a libpq call blocked on its thread (PostgreSQL restarting)
/// cannot be interrupted, and a task group would hold the 504 until it returned (13 s in the outage test). It does
/// wait for its timer, which is cancelled as soon as the work answers: a timer left sleeping for the whole timeout
/// after every request held each request's memory with it (peak RSS 515 MiB instead of 120 under the read
/// benchmark).
func withRequestTimeout(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> Response) async throws -> Response {
    let answer = FirstAnswer<Response>()
    let work = Task {
        do { answer.give(.success(try await body())) } catch { answer.give(.failure(error)) }
    }
    let timer = Task {
        guard (try? await Task.sleep(for: timeout)) != nil else { return } // cancelled: the work answered
        work.cancel()
        answer.give(.failure(APIError(.gatewayTimeout, "timeout", "the request took longer than \(timeout); retry it (writes are idempotent)")))
    }
    let result = await answer.value
    timer.cancel()
    await timer.value
    return try result.get()
}

/// The first of several results to arrive; later ones are ignored.
final class FirstAnswer<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiter: CheckedContinuation<Result<Value, any Error>, Never>?
    }

    private let state = Mutex(State())

    func give(_ result: Result<Value, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<Value, any Error>, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    var value: Result<Value, any Error> {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
