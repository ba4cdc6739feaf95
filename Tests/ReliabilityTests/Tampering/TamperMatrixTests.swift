import EmbeddedPostgres
import Foundation
import PostgresTestSupport
import Testing

/// Issue 8 item 7: every kind of change a database superuser can make to events (content, type, stream, hash,
/// position, order; a middle, first or last row; a forged row) and to finalized invoices (content, hash, both
/// consistently, number, owner, deletion, insertion) is found by the real `ledger verify` — or, for the few that
/// the log cannot prove on its own, `verify` passes exactly as documented (README "Guarantees"), and the same
/// change after a signed digest is found.
@Suite struct TamperMatrixTests {
    @Test func theUntouchedWorldVerifies() async throws {
        let url = try await TamperWorld.copy()
        let result = try await LedgerBinary.run(["verify", "--database-url", url])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("2 invoice(s) intact"), "\(result.output)")
        let cases = TamperCase.events + TamperCase.invoices + TamperCase.operatorRecord
        ReliabilityScale.report(
            "tamper",
            [
                "cases": cases.count, "event-cases": TamperCase.events.count, "invoice-cases": TamperCase.invoices.count,
                "documented-boundaries": cases.filter {
                    if case .undetectable = $0.expected { true } else { false }
                }.count
            ])
    }

    @Test(arguments: TamperCase.events + TamperCase.invoices + TamperCase.operatorRecord)
    func verifyFindsTheChange(_ tampering: TamperCase) async throws {
        let url = try await TamperWorld.copy()
        var arguments = ["verify", "--database-url", url]
        if tampering.withDigest { arguments += ["--digest-public-key", try await TamperWorld.digest(url)] }
        try TamperWorld.tamper(url, tampering.sql)
        let result = try await LedgerBinary.run(arguments)
        switch tampering.expected {
        case .found(let tag):
            #expect(result.status == 1, "\(tampering): verify exited \(result.status)\n\(result.output)")
            #expect(result.output.contains(tag), "\(tampering): no \(tag) in\n\(result.output)")
        case .undetectable:
            #expect(
                result.status == 0,
                "\(tampering) is documented as undetectable without a digest; verify now finds it: update the README\n\(result.output)")
        }
        ReliabilityScale.report("tamper \(tampering)", ["exit": Int(result.status)])
    }
}
