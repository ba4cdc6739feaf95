import LedgerDomain
import Foundation
import LedgerStore
import PostgresClient
import PostgresTestSupport

/// A fresh migrated database: the service's store, and a superuser pool for tests that play the attacker.
struct StoreFixture: Sendable {
    let connectionString: String
    let store: EventStore
    let superuser: PostgresPool

    static func make() async throws -> StoreFixture {
        let url = try await TestDatabase.makeDatabase()
        let pool = try await LedgerDatabase.open(connectionString: url, poolSize: 4, migrations: try SchemaLocation.migrations())
        return StoreFixture(connectionString: url, store: EventStore(pool: pool),
                            superuser: PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 2))
    }

    func close() async {
        await store.pool.shutdown()
        await superuser.shutdown()
    }
}

func event(_ key: String, type: String = "test.happened", payload: String = #"{"n": 1}"#) -> NewEvent {
    NewEvent(type: type, payload: payload, metadata: EventMetadata(source: "test"), idempotencyKey: key,
             occurredAt: Instant(microsecondsSinceEpoch: 1_700_000_000_123_456))
}
