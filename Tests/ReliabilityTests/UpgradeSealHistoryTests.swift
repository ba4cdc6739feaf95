import Crypto
import EmbeddedPostgres
import Foundation
import HTTPTypes
import LedgerServerTestSupport
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// The log's own migration to pseudonyms and sealed fields (`ledger migrate --seal-history`, docs/erasure.md
/// "Upgrading"), from the project's upgrade fixture: a database a version-6 `ledger` wrote, whose events name the
/// users by their ids (also their `appAccountToken`s) and keep Apple's signed payloads in clear.
@Suite(.timeLimit(.minutes(10))) struct UpgradeSealHistoryTests {
    static func connect(_ url: String) throws -> PostgresConnection { try PostgresConnection.connect(PostgresConfiguration(connectionString: url)) }

    /// Waits up to a minute for no other session to be connected to the database; what is still there then.
    static func sessionsLeft(_ url: String) async throws -> [String] {
        let connection = try connect(url)
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let others = try connection.query(
                """
                SELECT application_name || ' ' || coalesce(state, '') || ' since ' || backend_start::text || ': ' || left(query, 80)
                FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
                """
            ).map { try $0.decode(String.self, at: 0) }
            if others.isEmpty || ContinuousClock.now >= deadline { return others }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test func sealingTheHistoryLeavesNoIdInTheDatabaseAVerifiedChainAndTheSameAnswers() async throws {
        let fixture = try UpgradeFixture.load()
        let url = try await TestDatabase.makeDatabase(prefix: "upgrade006_seal", on: .faults)
        try UpgradeFixture.restore(into: url)
        try UpgradeFixture.advanceTransactionIDs(on: try Self.connect(url))
        try await TestDatabase.waitForHorizon(url)
        let signingKey = Curve25519.Signing.PrivateKey()
        let keyFile = TestScratch.path("seal-history-signing-key-\(UUID().uuidString)")
        try signingKey.rawRepresentation.map { String(format: "%02x", $0) }.joined().write(toFile: keyFile, atomically: true, encoding: .utf8)
        let keys = ["--master-key", TestMasterKey.file, "--signing-key", keyFile]

        // The schema upgrade; then, as an upgraded server would, user 7 (adopted with their id as pseudonym) buys again,
        // in a month they paid in already (no invoice changes), with a developer payload stored sealed already; then a
        // digest of that log (what an auditor may hold).
        #expect(try await LedgerBinary.run(["migrate"], databaseURL: url).status == 0)
        let user = UpgradeFixture.users[6]
        let secret: HTTPFields = [.authorization: "Bearer \(fixture.tenant.secretKey)"]
        let external =
            #"{"payment_id":"ch_after_upgrade","provider":"paylike","product_id":"coins","product_type":"consumable","#
            + #""price":{"amount_milliunits":990,"currency":"USD"},"purchased_at":"2026-09-20T10:00:00Z","#
            + #""developer_payload":"order-after-upgrade"}"#
        let writer = try await APIHarness.make(database: url)
        try await writer.test { client in
            let bought = try await client.send(.post, "/v1/users/\(user)/external-purchases", headers: secret, json: external)
            #expect(bought.status == .created, "\(bought.text)")
            // Until the log is rewritten, an upgraded user cannot be erased: their id is in the log itself.
            let refused = try await client.send(.delete, "/v1/users/\(UpgradeFixture.users[0])?reason=upgrade-test", headers: secret)
            #expect(refused.status == .conflict && refused.text.contains("recorded_before_pseudonyms"), "\(refused.text)")
            #expect(refused.text.contains("ledger migrate --seal-history"), "says what to run: \(refused.text)")
        }
        // The operator record of a version before pseudonyms named users by id: in request paths and console details.
        let app = fixture.tenant.appID
        let (grantee, consumer, apiUser) = (UpgradeFixture.users[1], UpgradeFixture.users[3], UpgradeFixture.users[2])
        try Self.connect(url).execute(
            """
            INSERT INTO ledger.operator_actions (at, actor, channel, action, target, detail, previous_hash, hash) VALUES
                (now(), 'sam', 'console', 'grant.give', 'grt_1', 'pro to \(grantee) in \(app) for 7 days', '', ''),
                (now(), 'sam', 'console', 'purchase.consume', '4001', 'of \(consumer) in \(app)', '', ''),
                (now(), 'sam', 'api', 'POST /v1/admin/apps/{app_id}/users/{user_id}/grants',
                 '/v1/admin/apps/\(app)/users/\(apiUser)/grants', '', '', ''),
                (now(), 'sam', 'console', 'grant.revoke', 'grt_2', 'of someone-the-log-never-named in \(app)', '', '');
            INSERT INTO ledger.webhook_endpoints (app_id, endpoint_id, url, event_types, environments, secret, status)
            VALUES ('\(app)', 'we_old', 'https://hooks.example.com/x', '{}', '{production}', 'whsec_b2xkLXNlY3JldA==', 'disabled');
            INSERT INTO ledger.webhook_deliveries (app_id, endpoint_id, delivery_id, position, event_type, app_user_id, order_key, sequence,
                payload, status, attempts)
            VALUES ('\(app)', 'we_old', 'msg_old', 1, 'subscription.renewed', '\(grantee)', 'user:\(grantee)', 1,
                    '{"type":"subscription.renewed","data":{"app_user_id":"\(grantee)"}}', 'succeeded', 1);
            """)
        // A digest signs the log up to the commit horizon, which another test's open transaction on this shared server
        // can hold below the purchase just made; the test wants the whole log signed.
        try await TestDatabase.waitForHorizon(url)
        let digest = try await LedgerBinary.run(["digest", "--signing-key", keyFile], databaseURL: url)
        #expect(digest.status == 0, "\(digest.output)")
        let (eventsBefore, oldDigest) = try {
            let connection = try Self.connect(url)
            let heads = try connection.query("SELECT encode(heads_hash, 'hex') FROM ledger.chain_digests ORDER BY digest_id DESC LIMIT 1")
            return (try UpgradeFixture.events(on: connection), try heads.first?.decode(String.self, at: 0))
        }()
        let dumpBefore = try DatabaseDump.text(url)
        for user in UpgradeFixture.users.prefix(8) { #expect(dumpBefore.contains(user), "the old log names \(user) in clear") }

        // Refused while another session is connected: a running server would append under the names it retires.
        let refused = try await withExtendedLifetimeAsync(try Self.connect(url)) { holder in
            _ = try holder.query("SELECT 1")
            return try await LedgerBinary.run(["migrate", "--seal-history"] + keys, databaseURL: url)
        }
        #expect(refused.status != 0 && refused.output.contains("other session"), "\(refused.output)")
        // Without the digest key nothing could sign the statement.
        let unsigned = try await LedgerBinary.run(["migrate", "--seal-history", "--master-key", TestMasterKey.file], databaseURL: url)
        #expect(unsigned.status != 0 && unsigned.output.contains("--signing-key"), "\(unsigned.output)")

        // The sessions this test opened have closed, but a backend can outlive its client for a while on a loaded
        // machine: the command waits 5 s for them; the test waits for them to be gone first.
        let lingering = try await Self.sessionsLeft(url)
        let sealed = try await LedgerBinary.run(["migrate", "--seal-history"] + keys, databaseURL: url)
        #expect(sealed.status == 0 && sealed.output.contains("rewrote"), "\(sealed.output) (other sessions before it: \(lingering))")
        // Run again, it finds nothing left to rewrite.
        let again = try await LedgerBinary.run(["migrate", "--seal-history"] + keys, databaseURL: url)
        #expect(again.status == 0 && again.output.contains("nothing to rewrite"), "\(again.output)")

        // No user's id (each also their appAccountToken, inside Apple's signed payloads) is left anywhere, in any
        // encoding; every event kept its position, transaction and times.
        let dumpAfter = try DatabaseDump.text(url)
        for user in UpgradeFixture.users {
            for encoding in DatabaseDump.encodings(user) { #expect(!dumpAfter.contains(encoding), "\(user) as \(encoding)") }
        }
        let connection = try Self.connect(url)
        let eventsAfter = try UpgradeFixture.events(on: connection)
        #expect(eventsAfter.count == eventsBefore.count)
        #expect(zip(eventsBefore, eventsAfter).allSatisfy { $0.split(separator: " ").prefix(2) == $1.split(separator: " ").prefix(2) })
        #expect(zip(eventsBefore, eventsAfter).filter { $0 != $1 }.count >= eventsBefore.count / 2)
        let record = try connection.query("SELECT target || ' ' || detail FROM ledger.operator_actions ORDER BY seq").map {
            try $0.decode(String.self, at: 0)
        }
        let pseudonym = #/user:usr_[0-9a-f]{24}/#
        #expect(record[0].wholeMatch(of: #/grt_1 pro to user:usr_[0-9a-f]{24} in app_[0-9a-f]+ for 7 days/#) != nil, "\(record)")
        #expect(record[1].contains(pseudonym) && record[2].contains(pseudonym), "\(record)")
        #expect(record[3].contains("of someone-the-log-never-named in"), "an id the log never named stays: \(record)")
        let userStreams = try connection.query("SELECT DISTINCT substr(stream_id, 6) FROM ledger.events WHERE stream_id LIKE 'user:%'").map {
            try $0.decode(String.self, at: 0)
        }
        #expect(userStreams.allSatisfy { $0.wholeMatch(of: /usr_[0-9a-f]{24}/) != nil }, "\(userStreams)")

        // The statement binds the old log (and the digest signed of it) to the new one, signed with the digest key.
        let stored = try #require(try connection.query("SELECT statement, public_key FROM ledger.log_rewrites").first)
        let statement = try JSONDecoder().decode(LogRewriteStatement.self, from: Data(try stored.decode(String.self, at: 0).utf8))
        #expect(try stored.decode([UInt8].self, at: 1) == Array(signingKey.publicKey.rawRepresentation))
        let bound = try #require(statement.apps.first { $0.appID == app })
        #expect(bound.eventCount == Int64(eventsBefore.count) && bound.headsHashBefore != bound.headsHashAfter)
        #expect(bound.lastDigestHeadsHash == oldDigest && bound.headsHashBefore == oldDigest, "the old log was the one its digest signed")
        #expect(
            statement.operatorRecord?.rows == 4 && statement.operatorRecord?.rowsRewritten == 3, "\(String(describing: statement.operatorRecord))")

        let verify = try await LedgerBinary.run(["verify", "--signing-key", keyFile], databaseURL: url)
        #expect(verify.status == 0 && verify.output.contains("1 log rewrite statement(s) intact"), "\(verify.output)")
        #expect(verify.output.contains("1 invoice(s) intact"), "the finalized invoice reproduces from the rewritten log: \(verify.output)")
        let check = try await LedgerBinary.run(["replay", "--check"], databaseURL: url)
        #expect(check.status == 0 && check.output.contains("OK"), "\(check.output)")

        // The delivery the old version made names the pseudonym, its body sealed, and reads as it was sent.
        let delivery = try #require(try connection.query("SELECT app_user_id, payload FROM ledger.webhook_deliveries").first)
        #expect(try delivery.decode(String.self, at: 0).hasPrefix("usr_") && delivery.decode(String.self, at: 1).hasPrefix("pii1.dk_"))

        // Every answer about the users is the same, read through their pseudonyms (the timelines show the log as
        // stored, so they are left out), and an upgraded user can now be erased.
        try await UpgradeFixture.expectSameAnswers(fixture, database: url) { !$0.path.hasSuffix("/events") && !$0.path.contains(user) }
        let harness = try await APIHarness.make(database: url)
        try await harness.test { client in
            // User 7's purchase made after the upgrade: its payload, sealed before the rewrite, opens after it.
            let unconsumed = try await client.send(.get, "/v1/users/\(user)/unconsumed", headers: secret)
            #expect(unconsumed.text.contains(#""developer_payload":"order-after-upgrade""#), "\(unconsumed.text)")
            let shown = try await client.send(.get, "/v1/apps/\(app)/webhooks/we_old/deliveries/msg_old", headers: secret)
            #expect(shown.text.contains(#""app_user_id":"\#(grantee)""#) && shown.text.contains(#""data":{"app_user_id""#), "\(shown.text)")
            let erased = try await client.send(
                .delete, "/v1/users/\(UpgradeFixture.users[0])?reason=upgrade-test",
                headers: secret)
            #expect(erased.status == .ok, "\(erased.text)")
            let read = try await client.send(.get, "/v1/users/\(UpgradeFixture.users[0])", headers: secret)
            #expect(read.status == .notFound && read.text.contains("user_erased"), "\(read.text)")
        }

        // An altered statement is found.
        try connection.execute(
            """
            ALTER TABLE ledger.log_rewrites DISABLE TRIGGER USER;
            UPDATE ledger.log_rewrites SET statement = replace(statement, '"event_count":', '"event_count":1');
            ALTER TABLE ledger.log_rewrites ENABLE TRIGGER USER;
            """)
        let tampered = try await LedgerBinary.run(["verify", "--signing-key", keyFile], databaseURL: url)
        #expect(tampered.status == 1 && tampered.output.contains("[log rewrite]"), "\(tampered.output)")
    }
}

extension UpgradeSealHistoryTests {
    /// Straight from the old version to the rewrite, no server started in between: the command adopts the users itself
    /// (in a transaction of its own, before the rewrite's), and the rewrite commits whole.
    @Test func sealingRightAfterTheSchemaUpgradeAdoptsTheUsersFirst() async throws {
        let url = try await TestDatabase.makeDatabase(prefix: "upgrade006_seal_direct", on: .faults)
        try UpgradeFixture.restore(into: url)
        try UpgradeFixture.advanceTransactionIDs(on: try Self.connect(url))
        try await TestDatabase.waitForHorizon(url)
        let keyFile = TestScratch.path("seal-direct-signing-key-\(UUID().uuidString)")
        try Curve25519.Signing.PrivateKey().rawRepresentation.map { String(format: "%02x", $0) }.joined()
            .write(toFile: keyFile, atomically: true, encoding: .utf8)
        let sealed = try await LedgerBinary.run(
            ["migrate", "--seal-history", "--master-key", TestMasterKey.file, "--signing-key", keyFile], databaseURL: url)
        #expect(sealed.status == 0 && sealed.output.contains("rewrote"), "\(sealed.output)")
        #expect(!sealed.output.contains("already a transaction") && !sealed.output.contains("no transaction in progress"), "\(sealed.output)")
        let connection = try Self.connect(url)
        let adopted = try connection.query("SELECT count(*) FROM ledger.keyring WHERE name = 'legacy-users-adopted'").first?.decode(Int64.self, at: 0)
        #expect(adopted == 1)
        let named = try connection.query("SELECT count(*) FROM ledger.identities WHERE pseudonym !~ '^usr_[0-9a-f]{24}$'").first?
            .decode(Int64.self, at: 0)
        #expect(named == 0, "every identity is named by a pseudonym")
        let dump = try DatabaseDump.text(url)
        for user in UpgradeFixture.users { #expect(!dump.contains(user), "\(user)") }
        let verify = try await LedgerBinary.run(["verify", "--signing-key", keyFile], databaseURL: url)
        #expect(verify.status == 0 && verify.output.contains("1 log rewrite statement(s) intact"), "\(verify.output)")
    }
}

/// Keeps `value` alive while `body` runs (a connection held open across an await).
func withExtendedLifetimeAsync<T, R>(_ value: T, _ body: (T) async throws -> R) async rethrows -> R {
    let result = try await body(value)
    withExtendedLifetime(value) {}
    return result
}
