import EmbeddedPostgres
import Foundation
import Glibc
import Testing

@Suite struct ProcessRunnerTests {
    /// A spawned program (pg_ctl, and the PostgreSQL server it leaves running) inherits no descriptor of this process
    /// beyond its standard ones: an inherited listening socket would outlive its owner's close.
    @Test func aSpawnedProgramInheritsNoOtherDescriptor() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        let high = dup2(fds[0], 200)
        #expect(high == 200)
        #expect(fcntl(high, F_GETFD) & FD_CLOEXEC == 0, "the descriptor must be inheritable for the test to mean anything")
        defer {
            close(fds[0])
            close(fds[1])
            close(high)
        }
        let result = try await ProcessRunner.runOnThread(["/bin/sh", "-c", "if [ -e /proc/self/fd/200 ]; then echo inherited; else echo closed; fi"])
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "closed")
    }
}
