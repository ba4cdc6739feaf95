import Crypto
import EmbeddedPostgres
import Foundation
import LedgerBilling
import LedgerDomain
import LedgerOperators
import LedgerStore
import LedgerTenancy
import PostgresClient
import PostgresTestSupport
import UTCTime

/// A ledger to tamper with, built once: app `a` with a five-event stream `s` and paying subscribers in two apps
/// of two accounts, whose March 2026 invoices are finalized (numbers 2026-000001 and 2026-000002). Each tampering
/// case gets its own copy of it (`CREATE DATABASE … TEMPLATE`), changes it as a superuser who has switched the
/// triggers off, and runs the real `ledger verify` on it.
struct TamperWorld {
    static let template = Task { try await build() }

    static func build() async throws -> String {
        let url = try await TestDatabase.makeDatabase(prefix: "tamper_template", on: .faults)
        let pool = try await LedgerDatabase.open(connectionString: url, migrations: try SchemaLocation.migrations())
        let store = EventStore(pool: pool)
        let tenancy = TenancyStore(pool: pool)
        let at = Instant(microsecondsSinceEpoch: 1_773_100_800_000_000)  // 2026-03-10
        _ = try await store.append(
            app: "a", stream: "s",
            events: (1...5).map {
                NewEvent(
                    type: "test.happened", payload: #"{"n": \#($0)}"#, metadata: EventMetadata(source: "test"), idempotencyKey: "k\($0)",
                    occurredAt: at)
            })
        let day = Instant(microsecondsSinceEpoch: at.microsecondsSinceEpoch)
        for accountName in ["First", "Second"] {
            let account = try await tenancy.createAccount(name: accountName)
            let app = try await tenancy.createApp(.init(accountID: account.id, name: accountName, bundleID: "com.\(accountName.lowercased())"))
            for user in 1...3 {
                let id = "\(accountName)-\(user)"
                let facts = TransactionFacts(
                    appUserID: id, productID: "monthly", transactionID: id, originalTransactionID: id,
                    purchaseDate: day, expiresDate: day.adding(days: 30), signedDate: day)
                let encoded = LedgerEvent.subscriptionStarted(SubscriptionStarted(transaction: facts)).encoded()
                _ = try await store.append(
                    app: app.id, stream: "otx:\(id)",
                    events: [
                        NewEvent(
                            type: encoded.type, schemaVersion: encoded.schemaVersion, payload: encoded.payload, idempotencyKey: "tx:\(id)",
                            occurredAt: at)
                    ])
            }
        }
        try await TestDatabase.waitForHorizon(url)
        _ = try await InvoiceStore(pool: pool).finalizeAll(month: CalendarMonth(year: 2026, month: 3))
        // Rows #1…#4 of the operator record.
        let record = OperatorActionLog(pool: pool)
        let fiona = OperatorActor(operatorID: "op_f", name: "fiona", role: "finance", channel: .console, sourceAddress: "10.0.0.7", requestID: "r1")
        for (action, target) in [("sign_in", "console"), ("invoice.finalize", "inv_1"), ("invoice.void", "inv_1"), ("sign_out", "console")] {
            try await record.append(action, target: target, by: fiona, at: at)
        }
        await pool.shutdown()
        return url
    }

    static func hex(_ bytes: Data) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// A fresh copy of the world.
    static func copy() async throws -> String { try await TestDatabase.copyDatabase(try await template.value, prefix: "tamper", on: .faults) }

    /// Runs `sql` as a superuser with the immutability triggers switched off.
    static func tamper(_ url: String, _ sql: String) throws {
        let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
        try connection.execute("SET session_replication_role = replica; \(sql); RESET session_replication_role;")
    }

    /// Signs a digest of the copy at `url` with a new key; returns the public key (hex) an auditor keeps.
    static func digest(_ url: String) async throws -> String {
        let keyFile = TestScratch.path("tamper-key")
        let key = Curve25519.Signing.PrivateKey()
        try hex(key.rawRepresentation).write(toFile: keyFile, atomically: true, encoding: .utf8)
        try await TestDatabase.waitForHorizon(url)
        let result = try await LedgerBinary.run(["digest", "--database-url", url, "--signing-key", keyFile])
        guard result.status == 0 else { throw LedgerBinary.Failure.exited(result.status, result.output) }
        return hex(key.publicKey.rawRepresentation)
    }
}
