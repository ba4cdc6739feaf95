import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LedgerServer
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing

@Suite struct HealthRoutesTests {
    func app(connectionString: String, migrate: Bool) async throws -> (some ApplicationProtocol, PostgresPool) {
        let migrations = try SchemaLocation.migrations()
        let pool: PostgresPool
        if migrate {
            pool = try await LedgerDatabase.open(connectionString: connectionString, migrations: migrations)
        } else {
            pool = PostgresPool(configuration: PostgresConfiguration(connectionString: connectionString), size: 1)
        }
        let application = Application(router: LedgerApplication.makeRouter(readiness: ReadinessCheck(pool: pool, migrations: migrations)))
        return (application, pool)
    }

    @Test func healthAndReadyAnswerWhenMigrated() async throws {
        let (application, pool) = try await app(connectionString: try await TestDatabase.makeDatabase(), migrate: true)
        try await application.test(.router) { client in
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[HTTPField.Name("X-Request-Id")!] != nil)
            }
            try await client.execute(uri: "/ready", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains(#""status":"ready""#))
            }
        }
        await pool.shutdown()
    }

    @Test func readyIs503BeforeMigrationsAndWhenTheDatabaseIsGone() async throws {
        let (unmigrated, pool) = try await app(connectionString: try await TestDatabase.makeDatabase(), migrate: false)
        try await unmigrated.test(.router) { client in
            try await client.execute(uri: "/ready", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body).contains("001_event_log"))
            }
        }
        await pool.shutdown()
        let (unreachable, deadPool) = try await app(connectionString: "host=127.0.0.1 port=1 dbname=x connect_timeout=2", migrate: false)
        try await unreachable.test(.router) { client in
            try await client.execute(uri: "/ready", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body).contains("unreachable"))
            }
            // Liveness does not depend on the database.
            try await client.execute(uri: "/health", method: .get) { response in #expect(response.status == .ok) }
        }
        await deadPool.shutdown()
    }

    @Test func echoesASaneRequestIDAndReplacesAHostileOne() async throws {
        let (application, pool) = try await app(connectionString: try await TestDatabase.makeDatabase(), migrate: true)
        let name = HTTPField.Name("X-Request-Id")!
        try await application.test(.router) { client in
            try await client.execute(uri: "/health", method: .get, headers: [name: "req-123"]) { response in
                #expect(response.headers[name] == "req-123")
            }
            // A hostile id is replaced by Hummingbird's own request id (hexadecimal), a fresh one per request.
            var replacements: [String] = []
            for _ in 0..<2 {
                try await client.execute(uri: "/health", method: .get, headers: [name: String(repeating: "x", count: 500)]) { response in
                    let id = response.headers[name] ?? ""
                    #expect(!id.isEmpty && id.count <= 64 && id.allSatisfy(\.isHexDigit), "\(id)")
                    replacements.append(id)
                }
            }
            #expect(Set(replacements).count == 2)
        }
        await pool.shutdown()
    }
}
