import EmbeddedPostgres
import Foundation
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing

/// `ledger operators …` as an operator runs it: the real binary, the password on standard input.
@Suite struct OperatorsCommandTests {
    /// Runs `ledger <arguments>` with `input` on its standard input and LEDGER_MASTER_KEY_FILE set.
    static func ledger(_ arguments: [String], input: String = "", masterKey: String) async throws -> (status: Int32, output: String) {
        let script = #"printf '%s' "$LEDGER_TEST_INPUT" | "$0" "$@""#
        let result = try await ProcessRunner.runOnThread(
            [
                "/usr/bin/env", "LEDGER_TEST_INPUT=\(input)", "LEDGER_MASTER_KEY_FILE=\(masterKey)", "LEDGER_LOG_LEVEL=warning",
                "/bin/sh", "-c", script, LedgerBinary.url.path
            ] + arguments)
        return (result.status, result.output)
    }

    @Test func operatorsAreAddedWithAPasswordFromStandardInputAndListedDisabledAndPromoted() async throws {
        let url = try await TestDatabase.makeDatabase(prefix: "operators_cli")
        let key = TestScratch.path("cli-master-key")
        try String(repeating: "ab", count: 32).write(toFile: key, atomically: true, encoding: .utf8)
        let db = ["--database-url", url]

        let refused = try await Self.ledger(["operators", "add", "alice", "--role", "admin"] + db, input: "a long password", masterKey: key)
        #expect(refused.status != 0 && refused.output.contains("pass --password-stdin"))

        let added = try await Self.ledger(
            ["operators", "add", "alice", "--role", "admin", "--password-stdin"] + db, input: "a long password\n", masterKey: key)
        #expect(added.status == 0, "\(added.output)")
        #expect(added.output.contains("added operator alice") && added.output.contains("otpauth://totp/Subscription%20Ledger:alice?secret="))
        #expect(!added.output.contains("a long password"))

        let support = try await Self.ledger(
            ["operators", "add", "sam", "--role", "support", "--without-one-time-password", "--password-stdin"] + db,
            input: "another long password", masterKey: key)
        #expect(support.status == 0 && !support.output.contains("otpauth://"))
        let badRole = try await Self.ledger(["operators", "add", "x", "--role", "root", "--password-stdin"] + db, masterKey: key)
        #expect(badRole.status != 0 && badRole.output.contains("--role must be one of auditor, support, finance, admin"))

        #expect(try await Self.ledger(["operators", "disable", "sam"] + db, masterKey: key).status == 0)
        let promoted = try await Self.ledger(["operators", "set-role", "sam", "--role", "finance"] + db, masterKey: key)
        #expect(promoted.status == 0 && promoted.output.contains("otpauth://totp/Subscription%20Ledger:sam"))
        let reset = try await Self.ledger(["operators", "reset-password", "sam", "--password-stdin"] + db, input: "short", masterKey: key)
        #expect(reset.status != 0 && reset.output.contains("use at least 12 characters"))

        let list = try await Self.ledger(["operators", "list"] + db, masterKey: key)
        let lines = list.output.split(separator: "\n").filter { $0.hasPrefix("alice\t") || $0.hasPrefix("sam\t") }
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("alice\tadmin\tyes\tactive\t"))
        #expect(lines[1].hasPrefix("sam\tfinance\tyes\tdisabled "))

        // Tokens: shown once, listed without their text, only the operator's role or auditor, revoked by id.
        let token = try await Self.ledger(["operators", "tokens", "create", "alice", "--days", "7", "--label", "ci"] + db, masterKey: key)
        #expect(token.status == 0 && token.output.contains("shown once: lop_"), "\(token.output)")
        let text = try #require(token.output.range(of: "shown once: ").map { String(token.output[$0.upperBound...].prefix { !$0.isWhitespace }) })
        let wrongRole = try await Self.ledger(["operators", "tokens", "create", "alice", "--role", "finance"] + db, masterKey: key)
        #expect(wrongRole.status != 0 && wrongRole.output.contains("carries its operator's role (admin) or auditor"))
        let tokens = try await Self.ledger(["operators", "tokens", "list", "alice"] + db, masterKey: key)
        #expect(tokens.output.contains("\talice\tadmin\tci\t") && tokens.output.contains("\tactive") && !tokens.output.contains(text))
        let id = try #require(tokens.output.split(separator: "\n").first { $0.hasPrefix("tok_") }.map { String($0.prefix { $0 != "\t" }) })
        #expect(try await Self.ledger(["operators", "tokens", "revoke", id] + db, masterKey: key).status == 0)
        #expect(try await Self.ledger(["operators", "tokens", "list"] + db, masterKey: key).output.contains("\trevoked"))
        #expect(try await Self.ledger(["operators", "tokens", "revoke", "tok_nope"] + db, masterKey: key).output.contains("there is no token"))

        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1)
        let hashes = try await pool.query("SELECT password_hash FROM ledger.operators").map { try $0.decode(String.self, at: 0) }
        #expect(hashes.count == 2 && hashes.allSatisfy { $0.hasPrefix("$2b$12$") })
        await pool.shutdown()
    }
}
