import Crypto
import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import PostgresTestSupport
import Testing

/// What the hash chain alone cannot see, the signed digests do.
@Suite struct ChainDigestTests {
    func fixtureWithDigest() async throws -> (StoreFixture, AppendResult, Curve25519.Signing.PrivateKey) {
        let fixture = try await StoreFixture.make()
        let result = try await fixture.store.append(app: "app", stream: "s", events: (1...4).map { event("e\($0)") })
        _ = try await fixture.store.append(app: "other", stream: "s", events: [event("o1")])
        // A digest covers only events below the server-wide horizon, which another test can hold back.
        try await TestDatabase.waitForHorizon(fixture.connectionString)
        let key = Curve25519.Signing.PrivateKey()
        let digests = try await fixture.store.pool.withConnection { try ChainDigester().digest(on: $0, key: key) }
        #expect(digests.map(\.appID).sorted() == ["app", "other"])
        return (fixture, result, key)
    }

    func check(_ fixture: StoreFixture, trusted: Curve25519.Signing.PublicKey?) async throws -> (VerificationReport, [DigestProblem]) {
        try await fixture.superuser.withConnection { connection in
            (try LogVerifier().verify(on: connection), try ChainDigester().verify(on: connection, trustedKey: trusted))
        }
    }

    func asSuperuserWithoutTriggers(_ fixture: StoreFixture, _ sql: String) async throws {
        try await fixture.superuser.withConnection { connection in
            try connection.execute("SET session_replication_role = replica")
            try connection.execute(sql)
            try connection.execute("RESET session_replication_role")
        }
    }

    @Test func anUntouchedLogMatchesItsDigestsAndLaterEventsDoNotDisturbThem() async throws {
        let (fixture, _, key) = try await fixtureWithDigest()
        _ = try await fixture.store.append(app: "app", stream: "s", events: [event("after-digest")])
        let (chain, digests) = try await check(fixture, trusted: key.publicKey)
        #expect(chain.isIntact)
        #expect(digests.isEmpty)
        await fixture.close()
    }

    @Test(
        .disabled(
            if: CitusTestCluster.isActive,
            "the tamper switches off triggers for its session (session_replication_role), which Citus does not carry to the workers"))
    func removingTheNewestEventOfAStreamIsFound() async throws {
        let (fixture, result, key) = try await fixtureWithDigest()
        try await asSuperuserWithoutTriggers(fixture, "DELETE FROM ledger.events WHERE position = \(result.positions[3])")
        let (chain, digests) = try await check(fixture, trusted: key.publicKey)
        #expect(chain.isIntact)  // the chain alone cannot tell
        #expect(digests.map(\.appID) == ["app"])
        #expect(digests.first?.message.contains("removed") == true)
        await fixture.close()
    }

    @Test(
        .disabled(
            if: CitusTestCluster.isActive,
            "the tamper switches off triggers for its session (session_replication_role), which Citus does not carry to the workers"))
    func aForgerWhoRecomputesHashesIsFound() async throws {
        let (fixture, result, key) = try await fixtureWithDigest()
        try await asSuperuserWithoutTriggers(
            fixture,
            """
            UPDATE ledger.events SET payload = '{"n": 1000}' WHERE position = \(result.positions[3]);
            UPDATE ledger.events SET hash = ledger.event_hash(previous_hash, app_id, position, stream_id, stream_version, event_type,
                schema_version, payload, metadata, idempotency_key, occurred_at, recorded_at) WHERE position = \(result.positions[3]);
            """)
        let (chain, digests) = try await check(fixture, trusted: key.publicKey)
        #expect(chain.isIntact)
        #expect(digests.count == 1)
        await fixture.close()
    }

    @Test(
        .disabled(
            if: CitusTestCluster.isActive,
            "the tamper switches off triggers for its session (session_replication_role), which Citus does not carry to the workers"))
    func aDigestReSignedWithAnotherKeyIsFound() async throws {
        let (fixture, result, key) = try await fixtureWithDigest()
        try await asSuperuserWithoutTriggers(fixture, "DELETE FROM ledger.events WHERE position = \(result.positions[3])")
        // The attacker signs a fresh digest of the damaged log with a key of their own.
        let attacker = Curve25519.Signing.PrivateKey()
        _ = try await fixture.superuser.withConnection { try ChainDigester().digest(on: $0, key: attacker) }
        let (_, withTrustedKey) = try await check(fixture, trusted: key.publicKey)
        #expect(withTrustedKey.contains { $0.message.contains("other than the trusted one") })
        await fixture.close()
    }

    @Test func digestsAreAppendOnlyToo() async throws {
        let (fixture, _, _) = try await fixtureWithDigest()
        await #expect(throws: PostgresError.self) {
            try await fixture.superuser.query("UPDATE ledger.chain_digests SET event_count = 0")
        }
        await #expect(throws: PostgresError.self) {
            try await fixture.store.pool.query("DELETE FROM ledger.chain_digests")
        }
        await fixture.close()
    }
}
