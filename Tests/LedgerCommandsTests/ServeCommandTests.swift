import ArgumentParser
import Foundation
import LedgerCommands
import Testing

/// `ledger serve` refuses settings it cannot run with before it touches the database, saying which and why.
@Suite struct ServeCommandTests {
    @Test(arguments: [
        (["--projection-batch-size", "0"], "projection batch size"),
        (["--projection-batch-size", "10001"], "projection batch size"),
        (["--request-timeout", "0"], "request timeout"),
        (["--max-body-bytes", "10"], "body limit"),
        (["--digest-interval=-5"], "digest interval")
    ])
    func badSettingsAreRefusedWithTheirName(arguments: [String], named: String) async throws {
        // An address nothing listens on: the refusal must come before any connection attempt.
        let error = await #expect(throws: ValidationError.self) {
            try await ledger(["serve", "--database-url", "postgres://127.0.0.1:1/none"] + arguments)
        }
        #expect(error?.message.contains(named) == true, "\(String(describing: error?.message))")
    }
}

/// `serve` caps glibc's malloc arenas (its peak memory under many connections), unless the operator set glibc's own
/// `MALLOC_ARENA_MAX`.
@Suite struct MallocArenasTests {
    @Test func glibcsOwnSettingWins() {
        #expect(MallocArenas.limit(environment: ["MALLOC_ARENA_MAX": "8"]) == nil)
    }

    /// One arena per two cores (at least one), and glibc takes the setting.
    @Test func serveCapsTheArenas() {
        #if canImport(Glibc)
            #expect(MallocArenas.limit(environment: [:]) == Int32(max(1, ProcessInfo.processInfo.activeProcessorCount / 2)))
        #endif
    }
}
