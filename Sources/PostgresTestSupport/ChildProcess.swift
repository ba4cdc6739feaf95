import Foundation
import Glibc
import Synchronization

/// Ends of child processes awaited without holding a thread. Foundation's `Process.waitUntilExit` blocks the caller
/// (it spins a run loop), and a test awaiting it holds one of the cooperative pool's threads, which are as many as
/// the cores: on two cores two such waits stall every other test and every in-process server of the run.
public enum ChildProcess {
    /// Waits until `process` has exited, or `timeout` has passed; whether it exited. Woken by the exit itself
    /// (`terminationHandler`, which Foundation calls from its own thread once it has reaped the child), not by
    /// polling; the bound keeps a child that never exits from hanging the test run.
    @discardableResult
    public static func waitForExit(_ process: Process, timeout: Duration = .seconds(60)) async -> Bool {
        let exit = ExitSignal()
        // Set before reading `isRunning`: Foundation clears `isRunning` before it reads the handler, so an exit
        // between the two is seen by one or the other.
        process.terminationHandler = { _ in exit.give(true) }
        if !process.isRunning { exit.give(true) }
        let deadline = Task {
            try? await Task.sleep(for: timeout)
            exit.give(false)
        }
        let exited = await exit.value
        deadline.cancel()
        return exited
    }

    /// SIGKILL, then waits until the child is gone (at most `timeout`); whether it is.
    @discardableResult
    public static func kill(_ process: Process, timeout: Duration = .seconds(60)) async -> Bool {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        return await waitForExit(process, timeout: timeout)
    }

    /// SIGTERM (a graceful stop), then waits; the exit status. A child still running after `timeout` is killed
    /// (SIGKILL: its status then says so), so that a stop that hangs fails its test instead of the whole run.
    public static func terminate(_ process: Process, timeout: Duration = .seconds(120)) async -> Int32 {
        if process.isRunning { process.terminate() }
        if await !waitForExit(process, timeout: timeout) { await kill(process) }
        return process.isRunning ? -1 : process.terminationStatus
    }
}

/// The first of "the child exited" and "the deadline passed".
private final class ExitSignal: Sendable {
    private struct State {
        var answer: Bool?
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private let state = Mutex(State())

    func give(_ exited: Bool) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.answer == nil else { return nil }
            state.answer = exited
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: exited)
    }

    var value: Bool {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool? in
                    if let answer = state.answer { return answer }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
