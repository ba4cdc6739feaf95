import Foundation
import PostgresTestSupport
import Testing

/// Waiting for a child process: woken by its exit, bounded by a deadline, never holding a thread.
@Suite struct ChildProcessTests {
    /// A shell that exits with 3 once it reads a line: the test decides when it ends.
    static func childExitingOnInput() throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "read line; exit 3"]
        let input = Pipe()
        process.standardInput = input
        try process.run()
        return (process, input)
    }

    @Test(.timeLimit(.minutes(1))) func theWaitEndsWithTheExitAndIsBounded() async throws {
        let (process, input) = try Self.childExitingOnInput()
        // Still running: the wait gives up at its bound instead of hanging.
        #expect(await ChildProcess.waitForExit(process, timeout: .milliseconds(200)) == false)
        #expect(process.isRunning)
        try input.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
        #expect(await ChildProcess.waitForExit(process, timeout: .seconds(30)))
        #expect(process.terminationReason == .exit && process.terminationStatus == 3)
        // A child that has already exited: answered at once.
        #expect(await ChildProcess.waitForExit(process, timeout: .seconds(30)))
    }

    @Test(.timeLimit(.minutes(1))) func aKilledChildIsAwaited() async throws {
        let (process, _) = try Self.childExitingOnInput()
        #expect(await ChildProcess.kill(process, timeout: .seconds(30)))
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
    }
}
