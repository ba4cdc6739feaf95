import Foundation
import HTTPTypes
import LedgerPrivacy
import LedgerServerTestSupport
import LedgerWebhooks
import PostgresClient
import Testing

/// A crash at any point of an erasure leaves the user whole or erased, never half (docs/erasure.md, "Erasing a user").
/// The process's death is what the database sees of it: the erasure's connection ends (its backend terminated) right
/// after each step, inside the transaction or after the commit.
@Suite struct ErasureCrashTests {
    struct Ended: Error {}

    /// Ends the connection the way a dying process does: PostgreSQL rolls back whatever it had not committed.
    static func end(_ connection: PostgresConnection) throws -> Never {
        _ = try? connection.query("SELECT pg_terminate_backend(pg_backend_pid())")
        throw Ended()
    }

    @Test(.timeLimit(.minutes(10)), arguments: UserErasure.Step.allCases)
    func aCrashAfterAnyStepLeavesTheUserWholeOrErased(_ crashAfter: UserErasure.Step) async throws {
        let harness = try await APIHarness.make(now: SupportGrantTests.start)
        let user = "crash-\(crashAfter.rawValue)"
        try await harness.test { api in
            let tenant = try await api.tenant()
            try await ErasureTests.record(user, harness, api, tenant)
            let pseudonym = try #require(try await harness.identities.find(app: tenant.appID, user: user))
            // The developer payload and the webhook delivery's body (it names the user), both stored sealed.
            let sealed = try await harness.pool.query(
                """
                SELECT developer_payload FROM ledger.purchases WHERE app_id = \(tenant.appID) AND developer_payload IS NOT NULL
                UNION ALL SELECT payload FROM ledger.webhook_deliveries WHERE app_id = \(tenant.appID) AND app_user_id IS NOT NULL
                """
            ).map { try $0.decode(String.self, at: 0) }
            #expect(sealed.count >= 2 && sealed.allSatisfy { $0.hasPrefix("pii1.dk_") }, "\(sealed)")

            var erasure = UserErasure(identities: harness.identities, signingKey: APIHarness.digestKey)
            erasure.afterStep = { step, connection in if step == crashAfter { try Self.end(connection) } }
            await #expect(throws: (any Error).self) {
                try await erasure.erase(
                    app: tenant.appID, user: user, reason: "ticket-1", by: "test", at: harness.clock.now,
                    scrub: { connection, app, user, pseudonym in try WebhookStore.forget(app: app, user: user, pseudonym: pseudonym, on: connection) }
                )
            }

            let certificates = try await harness.pool.query("SELECT count(*) FROM ledger.erasures").first?.decode(Int64.self, at: 0)
            let liveKeys = try await harness.pool.query(
                "SELECT count(*) FROM ledger.data_keys WHERE app_id = \(tenant.appID) AND sealed IS NOT NULL"
            ).first?.decode(Int64.self, at: 0)
            let read = try await api.send(.get, "/v1/users/\(user)", headers: tenant.secret)
            if crashAfter == .committed {
                // Erased whole: certificate, identity, keys, reads.
                #expect(certificates == 1 && liveKeys == 0)
                #expect(try await harness.identities.userID(app: tenant.appID, pseudonym: pseudonym) == nil)
                #expect(read.status == .notFound && read.errorCode == "user_erased", "\(read.text)")
                #expect(try await ErasureTests.tablesHolding(user, harness.pool) == [])
            } else {
                // Whole: nothing of the erasure stayed.
                #expect(certificates == 0)
                #expect(try await harness.identities.userID(app: tenant.appID, pseudonym: pseudonym) == user)
                #expect(try await harness.identities.fields.open(app: tenant.appID, sealed).count == sealed.count)
                #expect(read.status == .ok && read.text.contains("\"known\":true"), "\(read.text)")
                #expect(try await ErasureTests.tablesHolding(user, harness.pool) == [])
            }

            // Asked again (the retry after the crash): erased, one certificate, the id nowhere.
            let again = try await api.send(.delete, "/v1/users/\(user)?reason=ticket-1", headers: tenant.secret)
            #expect(again.status == .ok, "\(again.text)")
            #expect(try await harness.pool.query("SELECT count(*) FROM ledger.erasures").first?.decode(Int64.self, at: 0) == 1)
            #expect(try await ErasureTests.tablesHolding(user, harness.pool) == [])
            // (Read as a restarted process would: the crashed one's memory of the keys is gone with it.)
            let restarted = IdentityStore(pool: harness.pool, keys: TestMasterKey.source)
            #expect(try await restarted.fields.open(app: tenant.appID, sealed).isEmpty)
        }
    }
}
