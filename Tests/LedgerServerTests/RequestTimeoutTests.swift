import Hummingbird
@testable import LedgerServer
import Synchronization
import Testing

/// The request timeout on its own: the work's answer when it is in time, a 504 at the deadline even when the work
/// cannot be interrupted, and nothing of the timeout left behind after the answer.
// Five minutes: under the whole suite on two cores these millisecond tests have waited over a minute for a thread;
// an hour-long timer left sleeping (what the first test guards against) still far exceeds it.
@Suite(.timeLimit(.minutes(10))) struct RequestTimeoutTests {
    @Test func anAnswerInTimeIsReturnedAndItsTimerDoesNotOutliveIt() async throws {
        // An hour-long timeout: if its timer were left sleeping (it once was, holding every request's memory for
        // the whole timeout), this call would not return before the suite's time limit.
        for _ in 0..<50 {
            let response = try await withRequestTimeout(.seconds(3600)) { Response(status: .created) }
            #expect(response.status == .created)
        }
    }

    @Test func theWorksOwnErrorIsPassedOn() async {
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            _ = try await withRequestTimeout(.seconds(3600)) { throw Refused() }
        }
    }

    @Test func workThatIgnoresCancellationStillGetsA504AtTheDeadline() async throws {
        // Like a libpq call blocked while PostgreSQL restarts: it neither returns nor notices cancellation.
        let stuck = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let error = await #expect(throws: APIError.self) {
            _ = try await withRequestTimeout(.milliseconds(50)) {
                await withCheckedContinuation { continuation in stuck.withLock { $0 = continuation } }
                return Response(status: .ok)
            }
        }
        #expect(error?.status == .gatewayTimeout)
        #expect(error?.code == "timeout")
        // Let the abandoned work finish, as the database eventually does.
        while stuck.withLock({ $0 == nil }) { await Task.yield() }
        stuck.withLock {
            $0?.resume(); $0 = nil
        }
    }

    @Test func workThatStopsWhenCancelledStillGetsThe504() async {
        // Waiting for a request body, a sleep, a task group: work that ends at once with CancellationError when the
        // deadline cancels it. Its CancellationError once raced the 504 and sometimes won, and the client got a
        // 503 "shutting down" (without Retry-After) from a server that was not shutting down.
        for deadline in [50, 1_050] {
            for _ in 0..<(deadline < 1_000 ? 40 : 2) {
                let error = await #expect(throws: APIError.self) {
                    _ = try await withRequestTimeout(.milliseconds(deadline)) {
                        try await Task.sleep(for: .seconds(3600))
                        return Response(status: .ok)
                    }
                }
                #expect(error?.status == .gatewayTimeout)
            }
        }
    }
}
