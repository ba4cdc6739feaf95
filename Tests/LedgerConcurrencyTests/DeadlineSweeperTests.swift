import LedgerConcurrency
import NIOCore
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1))) struct DeadlineSweeperTests {
    /// A deadline expires once; one cancelled before it is due never does, even when due earlier than one that
    /// expires; and the sweeper forgets both.
    @Test func dueDeadlinesExpireOnceAndCancelledOnesNever() async {
        let sweeper = DeadlineSweeper(resolution: .milliseconds(5))
        let fired = Mutex<[String]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            // Due in 300 ms, not 1: a thread paused for a few milliseconds between these two lines (the whole suite on
            // two cores) let the sweep expire it before the cancel, and the test failed in a CI run.
            let cancelled = sweeper.schedule(in: .milliseconds(300)) { fired.withLock { $0.append("cancelled") } }
            sweeper.cancel(cancelled)
            _ = sweeper.schedule(in: .milliseconds(600)) {
                fired.withLock { $0.append("due") }
                done.resume()
            }
        }
        #expect(fired.withLock { $0 } == ["due"])
        #expect(sweeper.pendingCount == 0)
    }

    /// The timer stops when nothing is pending and starts again with the next deadline.
    @Test func aSweeperIdleAfterItsLastDeadlineServesTheNext() async {
        let sweeper = DeadlineSweeper(resolution: .milliseconds(5))
        for round in 0..<3 {
            let value = await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
                _ = sweeper.schedule(in: .milliseconds(2)) { done.resume(returning: round) }
            }
            #expect(value == round)
        }
    }
}
