import LedgerConcurrency
import Testing

/// The wake-up flag between a worker's catch-ups: a notification wakes exactly one wait, and a wait's timeout
/// never leaks into the next wait (it used to: an idle projection worker then spun without pause).
@Suite struct WakeSignalTests {
    @Test func aFireBeforeTheWaitMakesItReturnAtOnceAndIsConsumed() async {
        let signal = WakeSignal()
        signal.fire()
        #expect(signal.isPending)
        await signal.wait(timeout: .seconds(3600))
        #expect(!signal.isPending)
    }

    @Test func aWaitWokenByAFireLeavesNothingForTheNextWait() async {
        let signal = WakeSignal()
        let waiting = Task { await signal.wait(timeout: .seconds(3600)) }
        while !signal.isWaiting { await Task.yield() }
        signal.fire()
        await waiting.value  // its timer is finished too
        #expect(!signal.isPending, "the cancelled timeout set the flag: the next wait would return at once")
        #expect(!signal.isWaiting)
    }

    @Test func aTimeoutEndsOnlyItsOwnWait() async {
        let signal = WakeSignal()
        await signal.wait(timeout: .milliseconds(1))
        #expect(!signal.isPending)
        // The next wait is still woken by a fire, not by anything left of the first.
        let waiting = Task { await signal.wait(timeout: .seconds(3600)) }
        while !signal.isWaiting { await Task.yield() }
        signal.fire()
        await waiting.value
        #expect(!signal.isPending)
    }

    @Test func aTimeoutShorterThanTheStartOfTheWaitStillEndsIt() async {
        let signal = WakeSignal()
        for _ in 0..<200 { await signal.wait(timeout: .nanoseconds(1)) }
        #expect(!signal.isPending)
    }
}
