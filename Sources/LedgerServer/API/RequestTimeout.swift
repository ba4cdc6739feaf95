import Hummingbird

/// Answers 504 when a handler takes longer than `timeout` (a stuck database, a body trickling in), so clients
/// are never left hanging. The handler's task is cancelled; work already handed to the database may still
/// complete, and since every write is idempotent a retry records nothing twice.
func withRequestTimeout(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> Response) async throws -> Response {
    try await withThrowingTaskGroup(of: Response?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let response = first else {
            throw APIError(.gatewayTimeout, "timeout", "the request took longer than \(timeout); retry it (writes are idempotent)")
        }
        return response
    }
}
