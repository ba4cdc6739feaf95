import LedgerDomain
import LedgerStore
import PostgresClient
import PostgresTestSupport
import UTCTime

/// A fresh migrated database: the service's store, and a superuser pool for tests that play the attacker or load
/// rows in bulk.
package struct StoreFixture: Sendable {
    package let connectionString: String
    package let store: EventStore
    package let superuser: PostgresPool

    /// `role`: `.bulkLoads` for a test that records tens of thousands of paying users, `.lateCommits` for one that
    /// delays commits (see `TestServer.Role`).
    package static func make(prefix: String = "test", on role: TestServer.Role = .shared) async throws -> StoreFixture {
        let url =
            if let citus = CitusTestCluster.directory {
                try await CitusTestCluster.makeDistributedDatabase(prefix: prefix, in: citus)
            } else {
                try await TestDatabase.makeDatabase(prefix: prefix, on: role)
            }
        let pool = try await LedgerDatabase.open(connectionString: url, poolSize: 4, migrations: try SchemaLocation.migrations())
        return StoreFixture(
            connectionString: url, store: EventStore(pool: pool),
            superuser: PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 2))
    }

    package func close() async {
        await store.pool.shutdown()
        await superuser.shutdown()
    }
}

/// A test event under idempotency key `key`, at a fixed business time.
package func event(_ key: String, type: String = "test.happened", payload: String = #"{"n": 1}"#) -> NewEvent {
    NewEvent(
        type: type, payload: payload, metadata: EventMetadata(source: "test"), idempotencyKey: key,
        occurredAt: Instant(microsecondsSinceEpoch: 1_700_000_000_123_456))
}
