import Foundation
@testable import PostgresTestSupport
import Testing

/// Test files go into one folder per test process; folders of processes that no longer run are swept.
@Suite struct TestScratchTests {
    @Test func pathsAreInThisProcesssFolder() throws {
        let path = TestScratch.path("events.jsonl")
        #expect(path.hasPrefix(TestScratch.directory + "/"))
        #expect(path.hasSuffix("-events.jsonl"))
        #expect(TestScratch.directory.hasSuffix("ledger-scratch-\(getpid())"))
        #expect(FileManager.default.fileExists(atPath: TestScratch.directory))
        #expect(path != TestScratch.path("events.jsonl"))
    }

    @Test func foldersOfEndedProcessesAreSweptAndLiveOnesKept() throws {
        let base = NSTemporaryDirectory() + "scratch-sweep-\(UUID().uuidString.prefix(8))/"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let ended = base + "ledger-scratch-\(Int32.max - 7)"  // above any pid_max: no such process
        let live = base + "ledger-scratch-1"  // init always runs
        let other = base + "unrelated-\(Int32.max - 7)"
        for folder in [ended, live, other] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        TestScratch.sweepAbandoned(in: base)
        #expect(!FileManager.default.fileExists(atPath: ended))
        #expect(FileManager.default.fileExists(atPath: live))
        #expect(FileManager.default.fileExists(atPath: other))
    }
}
