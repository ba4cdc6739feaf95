import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a streaming request delivers: body chunks as they arrive, then its end, each with the response's status.
enum StreamingPart: Sendable {
    case data(Data, status: Int)
    case completed(status: Int)
}

/// Receives a response body as it arrives. Holds only immutable `Sendable` state (the continuation), hence `Sendable`.
/// It does not implement the response callback (whose completion handler's annotations differ between Foundation on
/// Linux and Apple's), so the status is read from the task with each chunk.
final class StreamingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    let continuation: AsyncThrowingStream<StreamingPart, any Error>.Continuation

    init(continuation: AsyncThrowingStream<StreamingPart, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation.yield(.data(data, status: (dataTask.response as? HTTPURLResponse)?.statusCode ?? 0))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            continuation.finish(throwing: error)
        } else {
            continuation.yield(.completed(status: (task.response as? HTTPURLResponse)?.statusCode ?? 0))
            continuation.finish()
        }
    }
}

/// One streaming request (`URLSession.bytes` does not exist on Linux; a data delegate works on both).
enum StreamingRequest {
    static func open(_ request: URLRequest) -> AsyncThrowingStream<StreamingPart, any Error> {
        let (stream, continuation) = AsyncThrowingStream<StreamingPart, any Error>.makeStream()
        let configuration = LedgerClient.sessionConfiguration(timeout: request.timeoutInterval)
        let session = URLSession(configuration: configuration, delegate: StreamingDelegate(continuation: continuation), delegateQueue: nil)
        let task = session.dataTask(with: request)
        continuation.onTermination = { _ in
            // Not here and now: a cancelled reader runs this inside its task's cancellation, and URLSession's cancel
            // waits for the session's queue, which may be waiting to hand that task a chunk (LedgerClient.load).
            DispatchQueue.global().async {
                task.cancel()
                session.invalidateAndCancel()  // the session holds its delegate until invalidated
            }
        }
        task.resume()
        return stream
    }
}

/// Holds the user's live stream (`GET /v1/users/{id}/live` as Server-Sent Events): reconnects with the last cursor,
/// falls back to polling while the stream is unavailable (`LiveConnectionPolicy`), until cancelled.
struct LiveUpdater: Sendable {
    let client: LedgerClient
    let userID: String
    let cookie: @Sendable () async -> UIDCookie?
    /// A state the stream sent, and its cursor.
    let onState: @Sendable (Wire.LiveState, String?) async -> Void
    let poll: @Sendable () async -> Void
    let log: @Sendable (String) -> Void
    var policy: LiveConnectionPolicy
    /// The server sends a heartbeat every 15 s: silence longer than this means the connection is gone.
    var idleTimeout: TimeInterval = 45

    func run(from startCursor: String?) async {
        var policy = policy
        var cursor = startCursor
        while !Task.isCancelled {
            let (ending, last) = await hold(cursor: cursor)
            cursor = last ?? cursor
            if Task.isCancelled { return }
            let decision = policy.decide(after: ending)
            log("live stream ended (\(ending)); \(decision)")
            switch decision {
            case .reconnect(let delay, let keepCursor):
                if !keepCursor { cursor = nil }
                try? await Task.sleep(for: delay)
            case .poll(let interval, let retryAfter):
                let until = ContinuousClock.now + retryAfter
                repeat {
                    await poll()
                    try? await Task.sleep(for: min(interval, until - ContinuousClock.now))
                } while ContinuousClock.now < until && !Task.isCancelled
            case .stop:
                return
            }
        }
    }

    /// One connection, until it ends; returns how, and the last cursor received.
    func hold(cursor: String?) async -> (LiveConnectionPolicy.Ending, String?) {
        var request = client.request("GET", "/v1/users/\(LedgerClient.segment(userID))/live", cookie: await cookie())
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        if let cursor { request.setValue(cursor, forHTTPHeaderField: "Last-Event-ID") }
        request.timeoutInterval = idleTimeout
        var parser = ServerSentEventParser()
        var last: String?
        var received = false
        do {
            for try await part in StreamingRequest.open(request) {
                switch part {
                case .data(let data, let status):
                    guard status == 200 else { return (.refused(status: status), last) }
                    for event in parser.feed(data) where event.event == "snapshot" || event.event == "change" {
                        guard let state = try? JSONDecoder().decode(Wire.LiveState.self, from: Data(event.data.utf8)) else {
                            log("live stream: undecodable \(event.event)")
                            continue
                        }
                        received = true
                        last = event.id
                        await onState(state, event.id)
                    }
                case .completed(let status):
                    if status != 200 { return (.refused(status: status), last) }
                }
            }
        } catch {
            log("live stream: \(error.localizedDescription)")
        }
        return (received ? .droppedAfterEvents : .unreachable, last)
    }
}
