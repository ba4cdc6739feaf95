import EmbeddedPostgres
import Foundation
import PostgresClient
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

/// A test process killed before its `atexit` leaves its PostgreSQL cluster running and its spawned servers polling it;
/// the next run stops them and removes their folders.
@Suite struct AbandonedTestRunsTests {
    @Test func theNamesCarryTheirProcess() {
        #expect(AbandonedTestRuns.ownerPID(of: "ledger-scratch-4335") == 4335)
        #expect(AbandonedTestRuns.ownerPID(of: "ledger-tests-14099-7987C0BB") == 14099)
        #expect(AbandonedTestRuns.ownerPID(of: "ledger-bench-27235") == nil)
        #expect(AbandonedTestRuns.ownerPID(of: "ledger-tests-") == nil)
    }

    @Test func aKilledRunsClusterAndServersAreStoppedAndTheirFoldersRemoved() throws {
        let base = NSTemporaryDirectory() + "abandoned-sweep-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let ended = Int32.max - 7  // above any pid_max: no such process
        let clusterFolder = base + "/ledger-tests-\(ended)-0A1B2C3D"
        let scratchFolder = base + "/ledger-scratch-\(ended)"
        let liveScratch = base + "/ledger-scratch-\(getpid())"
        for folder in [scratchFolder, liveScratch] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let cluster = EmbeddedCluster(
            directory: clusterFolder, installation: try PostgresInstallation.locate(), options: .init(unsafeFastWrites: true))
        let running = try cluster.start()
        defer { try? cluster.stop() }
        let postmaster = try #require(AbandonedTestRuns.postmasterPID(inDataDirectory: clusterFolder + "/pgdata"))
        #expect(AbandonedTestRuns.isRunning(postmaster))

        // A child writing into the ended run's scratch folder, as a spawned `ledger serve` logs there.
        let logPath = scratchFolder + "/serve.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/bin/sleep")
        server.arguments = ["600"]
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        (server.standardOutput, server.standardError) = (log, log)  // not this process's output: a pipe held open
        try server.run()
        // SIGKILL: the test process may ignore SIGTERM (ServiceLifecycle does, to watch it), and its children inherit that.
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }

        AbandonedTestRuns.sweep(in: base)

        // The sweep waits for what it stopped (a zombie not yet reaped counts as ended).
        #expect(!AbandonedTestRuns.isRunning(server.processIdentifier))
        #expect(!AbandonedTestRuns.isRunning(postmaster))
        #expect(throws: (any Error).self) {
            try PostgresConnection.connect(PostgresConfiguration(connectionString: running.connectionString(database: "postgres")))
        }
        #expect(!FileManager.default.fileExists(atPath: clusterFolder))
        #expect(!FileManager.default.fileExists(atPath: scratchFolder))
        #expect(FileManager.default.fileExists(atPath: liveScratch))
    }
}
