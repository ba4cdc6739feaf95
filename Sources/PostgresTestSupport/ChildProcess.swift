import Foundation
import Glibc

/// Ends of child processes awaited without holding a thread. Foundation's `Process.waitUntilExit` blocks the caller
/// (it spins a run loop), and a test awaiting it holds one of the cooperative pool's threads, which are as many as
/// the cores: on two cores two such waits stall every other test and every in-process server of the run.
public enum ChildProcess {
    /// Waits until `process` has exited (Foundation's monitor thread notices the exit; this polls what it saw).
    public static func waitForExit(_ process: Process) async {
        while process.isRunning {
            // A child's exit is noticed by Foundation's own thread; there is no event an async caller can await.
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// SIGKILL, then waits until the child is gone.
    public static func kill(_ process: Process) async {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        await waitForExit(process)
    }

    /// SIGTERM (a graceful stop), then waits; the exit status.
    public static func terminate(_ process: Process) async -> Int32 {
        if process.isRunning { process.terminate() }
        await waitForExit(process)
        return process.terminationStatus
    }
}
