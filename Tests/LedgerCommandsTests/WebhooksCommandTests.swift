import ArgumentParser
import Foundation
import LedgerDomain
import LedgerPrivacy
import LedgerStore
import LedgerTenancy
import LedgerWebhooks
import PostgresClient
import PostgresTestSupport
import Testing

@Suite struct WebhooksCommandTests {
    /// The operator's view: endpoints, deliveries, one delivery, and redelivery of one or a range.
    @Test func listInspectAndRedeliverFromTheCommandLine() async throws {
        let (url, pool, app) = try await migratedDatabaseWithOneApp()
        let masterKey = TestScratch.path("webhooks-master-key-\(UUID().uuidString)")
        try (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined().write(
            toFile: masterKey, atomically: true, encoding: .utf8)
        let endpoint = try await WebhookStore(
            pool: pool, identities: IdentityStore(pool: pool, keys: try MasterKeySource(path: masterKey, create: false))
        )
        .createEndpoint(
            app: app.id, url: "https://hooks.example.com/x", description: nil,
            eventTypes: [], environments: ["production"])
        _ = try await pool.query(
            """
            INSERT INTO ledger.webhook_deliveries (app_id, endpoint_id, delivery_id, position, event_type, app_user_id, order_key, sequence,
                payload, status, attempts)
            SELECT \(app.id), \(endpoint.endpointID), 'msg_' || i, i, 'subscription.renewed', 'u', 'user:u', i, '{}', 'given_up', 3
            FROM generate_series(1, 3) AS i
            """)
        await pool.shutdown()
        let base = ["--database-url", url, "--master-key", masterKey, "--app", app.id]
        #expect(try await ledger(["webhooks", "list"] + base) == 0)
        #expect(try await ledger(["webhooks", "deliveries", "--endpoint", endpoint.endpointID, "--status", "given_up"] + base) == 0)
        #expect(try await ledger(["webhooks", "show", "--endpoint", endpoint.endpointID, "--delivery", "msg_2"] + base) == 0)
        #expect(try await ledger(["webhooks", "redeliver", "--endpoint", endpoint.endpointID, "--delivery", "msg_1"] + base) == 0)
        #expect(try await ledger(["webhooks", "redeliver", "--endpoint", endpoint.endpointID, "--from-position", "3"] + base) == 0)
        let owner = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
        let statuses = try owner.query("SELECT delivery_id, status FROM ledger.webhook_deliveries ORDER BY position").map {
            "\(try $0.decode(String.self, at: 0))=\(try $0.decode(String.self, at: 1))"
        }
        #expect(statuses == ["msg_1=pending", "msg_2=given_up", "msg_3=pending"])

        // Mistakes are CLI errors that say what to do.
        await #expect(throws: (any Error).self) { try await ledger(["webhooks", "show", "--endpoint", "we_nope", "--delivery", "msg_1"] + base) }
        await #expect(throws: (any Error).self) {
            try await ledger(["webhooks", "redeliver", "--endpoint", endpoint.endpointID, "--delivery", "msg_9"] + base)
        }
        #expect(throws: (any Error).self) { try LedgerCommandParse.parse(["webhooks", "redeliver", "--endpoint", "e"] + base) }
        #expect(throws: (any Error).self) {
            try LedgerCommandParse.parse(["webhooks", "redeliver", "--endpoint", "e", "--delivery", "m", "--since", "2026-01-01T00:00:00Z"] + base)
        }
        #expect(throws: (any Error).self) { try LedgerCommandParse.parse(["webhooks", "redeliver", "--endpoint", "e", "--since", "soon"] + base) }
        #expect(throws: (any Error).self) { try LedgerCommandParse.parse(["webhooks", "deliveries", "--endpoint", "e", "--status", "lost"] + base) }
    }
}

import LedgerCommands

/// Parsing (with validation) alone.
enum LedgerCommandParse {
    static func parse(_ arguments: [String]) throws { _ = try LedgerCommand.parseAsRoot(arguments) }
}
