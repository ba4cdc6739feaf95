import ArgumentParser
import Crypto
import Foundation
import LedgerBilling
import LedgerOperators
import LedgerStore
import PostgresClient

/// `ledger verify`: recomputes the hash chain of the whole log, checks the newest signed digest of every app, checks
/// the operator record as the log (its chain and newest digest), checks every finalized invoice (hash, gapless
/// numbering, reproduction from the log) and every signed statement of a rewrite of the log (`LogRewriteStatement`).
/// Exit 0: intact; exit 1: each problem found, with its position (chain) or app (digest).
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "verify", abstract: "Check that no event was altered, removed or inserted.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var digest: DigestOptions

    @Option(
        name: .customLong("digest-public-key"),
        help: "The trusted public key of the digests (64 hex digits; default: $LEDGER_DIGEST_PUBLIC_KEY, else the signing key's).")
    var digestPublicKey: String?

    @Flag(help: "Skip recomputing every finalized invoice from the log (the hash and numbering checks still run).")
    var skipInvoiceReplay = false

    mutating func run() async throws {
        let logger = CommandLogging.logger("ledger.verify")
        let trustedKey = try trustedPublicKey()
        let replay = !skipInvoiceReplay
        let (report, digestProblems, digestsChecked, invoices, operators, rewrites) = try await database.withDatabase(logger: logger) { url in
            let connection = try PostgresConnectionFactory.connect(url)
            guard try SchemaMigrator.tableExists("ledger.events", on: connection) else {
                throw CommandFailure("this database has no ledger yet: run `ledger migrate` (or `ledger serve`) first")
            }
            let progress = ProgressReporter(label: "verify", unit: "events", total: try EventStore.count(on: connection, app: nil))
            let report = try LogVerifier().verify(on: connection) { progress.update(done: $0) }
            progress.finish(done: report.eventsChecked)
            let hasDigests = try SchemaMigrator.tableExists("ledger.chain_digests", on: connection)
            let digestProblems = hasDigests ? try ChainDigester().verify(on: connection, trustedKey: trustedKey) : []
            let invoices = try InvoiceVerifier.verify(on: connection, replay: replay)
            var operators: (checked: Int, problems: [OperatorRecordProblem]) = (0, [])
            if try SchemaMigrator.tableExists("ledger.operator_actions", on: connection) {
                let verifier = OperatorActionVerifier()
                operators = try verifier.verify(on: connection)
                operators.problems += try verifier.verifyDigest(on: connection, trustedKey: trustedKey)
            }
            let rewrites = try LogRewriteStatement.verify(on: connection, trustedKey: trustedKey)
            return (report, digestProblems, hasDigests, invoices, operators, rewrites)
        }
        if digestsChecked && trustedKey == nil {
            note("note: digests were checked against the keys stored with them; pass --digest-public-key to rule out re-signed digests")
        }
        if report.isIntact && digestProblems.isEmpty && invoices.problems.isEmpty && operators.problems.isEmpty && rewrites.problems.isEmpty {
            print(
                "OK: \(report.eventsChecked) events in \(report.streams) streams; the hash chain and signed digests are intact; "
                    + "\(invoices.checked) invoice(s) intact; the operator record's \(operators.checked) row(s) intact"
                    + (rewrites.checked == 0 ? "" : "; \(rewrites.checked) log rewrite statement(s) intact"))
            return
        }
        let count = report.problems.count + digestProblems.count + invoices.problems.count + operators.problems.count + rewrites.problems.count
        print(
            "TAMPERED: \(count) problem(s) in \(report.eventsChecked) events, \(invoices.checked) invoices and "
                + "\(operators.checked) operator record rows checked")
        for problem in report.problems { print("  [\(problem.kind.rawValue)] \(problem)") }
        for problem in digestProblems { print("  [digest] \(problem)") }
        for problem in invoices.problems { print("  [invoice] \(problem)") }
        for problem in operators.problems { print("  [operator record] \(problem)") }
        for problem in rewrites.problems { print("  [log rewrite] \(problem)") }
        throw ExitCode(1)
    }

    private func trustedPublicKey() throws -> Curve25519.Signing.PublicKey? {
        if let text = digestPublicKey ?? ProcessInfo.processInfo.environment["LEDGER_DIGEST_PUBLIC_KEY"] {
            guard let key = DigestSigningKey.publicKey(hex: text) else {
                throw ValidationError("--digest-public-key must be 64 hex digits (the public key `ledger digest` prints)")
            }
            return key
        }
        guard let path = digest.keyPath(database: database), FileManager.default.fileExists(atPath: path) else { return nil }
        return try DigestSigningKey.load(path: path).publicKey
    }
}
