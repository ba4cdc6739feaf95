import LedgerDomain
import PostgresClient
import UTCTime

/// Many paying users at once, written by PostgreSQL itself: one `INSERT … SELECT generate_series` of real
/// `subscription.started` events (the hash-chain trigger still runs), for invoice tests and the benchmarks'
/// million-user data set. Appending them one by one through the API would take minutes for no extra coverage.
public enum SyntheticPayingUsers {
    /// Users `user-<prefix><i>`, each with their own subscription `otx:<prefix><i>` bought on `day`, i in 1...users.
    public static func insert(
        on pool: PostgresPool, app appID: String, prefix: String, users: Int, day: Instant,
        environment: StoreEnvironment = .production
    ) async throws {
        let facts = TransactionFacts(
            appUserID: "USERX", productID: "monthly", transactionID: "OTIDX", originalTransactionID: "OTIDX",
            environment: environment, purchaseDate: day, expiresDate: day.adding(days: 30), signedDate: day)
        let encoded = LedgerEvent.subscriptionStarted(SubscriptionStarted(transaction: facts)).encoded()
        try await pool.query(
            """
            INSERT INTO ledger.events (app_id, stream_id, stream_version, event_type, schema_version, payload, idempotency_key, occurred_at)
            SELECT \(appID), 'otx:' || \(prefix) || i, 1, \(encoded.type), \(encoded.schemaVersion),
                   replace(replace(\(encoded.payload), 'OTIDX', \(prefix) || i), 'USERX', 'user-' || \(prefix) || i)::jsonb,
                   'tx:' || \(prefix) || i, 'epoch'::timestamptz + \(day.microsecondsSinceEpoch) * interval '1 microsecond'
            FROM generate_series(1, \(Int64(users))) AS i
            """)
    }
}
