import LedgerStore
import PostgresClient
import PostgresTestSupport

/// A fresh migrated database for the invoice tests: the service's store, and a superuser pool that records paying
/// users in bulk. The same shape as LedgerStoreTests' fixture, so the tests read alike in both modules.
struct StoreFixture: Sendable {
    let connectionString: String
    let store: EventStore
    let superuser: PostgresPool

    /// `role`: `.bulkLoads` for a test that records tens of thousands of paying users (see `TestServer.Role`).
    static func make(on role: TestServer.Role = .shared) async throws -> StoreFixture {
        let url = try await TestDatabase.makeDatabase(on: role)
        let pool = try await LedgerDatabase.open(connectionString: url, poolSize: 4, migrations: try SchemaLocation.migrations())
        return StoreFixture(connectionString: url, store: EventStore(pool: pool),
                            superuser: PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 2))
    }

    func close() async {
        await store.pool.shutdown()
        await superuser.shutdown()
    }
}
