import Foundation
import LedgerDomain
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

@Suite struct ReplayCommandTests {
    /// Writes one JSON Lines file of domain events: a subscription started on day 0 and expired on day 40.
    func domainEventsFile() throws -> String {
        let day0 = Instant(microsecondsSinceEpoch: 1_767_225_600_000_000)
        let day30 = Instant(microsecondsSinceEpoch: day0.microsecondsSinceEpoch + 30 * 86_400_000_000)
        let started = LedgerEvent.subscriptionStarted(
            SubscriptionStarted(
                transaction: TransactionFacts(
                    appUserID: "u1", productID: "monthly", transactionID: "t1", originalTransactionID: "o1",
                    purchaseDate: day0, expiresDate: day30, signedDate: day0), isResubscribe: false))
        let expired = LedgerEvent.subscriptionExpired(
            Expiry(
                subscription: SubscriptionRef(appUserID: "u1", productID: "monthly", originalTransactionID: "o1", signedDate: day30),
                reason: .voluntary, expiresDate: day30))
        let lines = [started, expired].map { event in
            let encoded = event.encoded()
            return #"{"app_id": "a", "stream": "o1", "type": "\#(encoded.type)", "schema_version": \#(encoded.schemaVersion), "#
                + #""data": \#(encoded.payload), "idempotency_key": "\#(event.idempotencyKey)", "occurred_at": "2026-01-01T00:00:00Z"}"#
        }
        let path = file("domain.jsonl")
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func rebuildCheckAndAsOf() async throws {
        let url = try await TestDatabase.makeDatabase()
        #expect(try await ledger(["events", "import", "--database-url", url, try domainEventsFile()]) == 0)
        #expect(try await ledger(["replay", "--database-url", url]) == 0)
        #expect(try await ledger(["replay", "--database-url", url, "--check"]) == 0)

        let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
        let status = try connection.query("SELECT status FROM ledger.subscriptions WHERE original_transaction_id = 'o1'")
            .first?.decode(String.self, at: 0)
        #expect(status?.hasPrefix("expired") == true)
        try connection.execute("UPDATE ledger.subscriptions SET product_id = 'forged' WHERE original_transaction_id = 'o1'")
        #expect(try await ledger(["replay", "--database-url", url, "--check", "--projection", "subscription_status"]) == 1)
        #expect(try await ledger(["replay", "--database-url", url, "--projection", "subscription_status"]) == 0)
        #expect(try await ledger(["replay", "--database-url", url, "--check"]) == 0)

        #expect(
            try await ledger([
                "replay", "--database-url", url, "--as-of", "2026-01-01T00:00:00Z", "--app", "a", "--key", "o1",
                "--projection", "subscription_status"
            ]) == 0)
        #expect(try await ledger(["replay", "--database-url", url, "--as-of", "2026-01-01T00:00:00Z", "--app", "a", "--user", "u1"]) == 0)
        await #expect(throws: (any Error).self) {
            _ = try await ledger(["replay", "--database-url", url, "--projection", "no_such_projection"])
        }
        await #expect(throws: (any Error).self) {
            _ = try await ledger(["replay", "--database-url", url, "--as-of", "2026-01-01T00:00:00Z", "--app", "a"])
        }
    }
}
