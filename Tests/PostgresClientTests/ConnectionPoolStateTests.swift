@testable import PostgresClient
import Testing

@Suite struct ConnectionPoolStateTests {
    typealias State = ConnectionPoolState<String, Int>

    @Test func createsUpToTheLimitThenQueuesWaitersInOrder() {
        var state = State(maximumConnections: 2)
        guard case .create = state.acquire(waiter: 1), case .create = state.acquire(waiter: 2) else { Issue.record("expected two creates"); return }
        guard case .wait = state.acquire(waiter: 3), case .wait = state.acquire(waiter: 4) else { Issue.record("expected waits"); return }
        #expect(state.openCount == 2)
        guard case .handOver("a", to: 3) = state.release("a", reusable: true) else { Issue.record("first waiter first"); return }
        guard case .handOver("b", to: 4) = state.release("b", reusable: true) else { Issue.record("then the second"); return }
        guard case .keepIdle = state.release("a", reusable: true) else { Issue.record("idle when nobody waits"); return }
        guard case .use("a") = state.acquire(waiter: 5) else { Issue.record("reuse idle"); return }
    }

    @Test func aBrokenConnectionFreesItsSlotOrIsReplacedForAWaiter() {
        var state = State(maximumConnections: 1)
        _ = state.acquire(waiter: 1)
        _ = state.acquire(waiter: 2)
        guard case .close("a", createFor: 2) = state.release("a", reusable: false) else { Issue.record("waiter opens a new one"); return }
        #expect(state.openCount == 1)
        guard case .close("b", createFor: nil) = state.release("b", reusable: false) else { Issue.record("plain close"); return }
        #expect(state.openCount == 0)
        guard case .create = state.acquire(waiter: 3) else { Issue.record("slot is free again"); return }
    }

    @Test func failedCreationPassesTheSlotToTheNextWaiter() {
        var state = State(maximumConnections: 1)
        _ = state.acquire(waiter: 1)
        _ = state.acquire(waiter: 2)
        #expect(state.creationFailed() == 2)
        #expect(state.openCount == 1)
        #expect(state.creationFailed() == nil)
        #expect(state.openCount == 0)
    }

    @Test func shutdownReturnsIdleAndWaitersAndRefusesNewWork() {
        var state = State(maximumConnections: 1)
        _ = state.acquire(waiter: 1)
        _ = state.acquire(waiter: 2)
        let (idle, waiters) = state.shutdown()
        #expect(idle.isEmpty)
        #expect(waiters == [2])
        guard case .fail = state.acquire(waiter: 3) else { Issue.record("closed pool refuses"); return }
        guard case .closeAfterShutdown("a") = state.release("a", reusable: true) else { Issue.record("closes on return"); return }
    }
}
