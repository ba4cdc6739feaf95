import Crypto
import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

@Suite struct VerifyCommandTests {
    @Test func verifyExitsOneWhenARowWasChanged() async throws {
        let url = try await TestDatabase.makeDatabase()
        try await importEvents(5, into: url)
        #expect(try await ledger(["verify", "--database-url", url]) == 0)
        let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
        try connection.execute(
            """
            SET session_replication_role = replica;
            UPDATE ledger.events SET payload = '{"n": 42}' WHERE stream_version = 3;
            """)
        #expect(try await ledger(["verify", "--database-url", url]) == 1)
    }

    /// Deleting a stream's newest event leaves a valid chain; the signed digest still finds it.
    @Test func verifyUsesTheSignedDigestToFindARemovedNewestEvent() async throws {
        let url = try await TestDatabase.makeDatabase()
        try await importEvents(5, into: url)
        let keyFile = file("signing-key")
        let key = Curve25519.Signing.PrivateKey()
        try Array(key.rawRepresentation).map { String(format: "%02x", $0) }.joined().write(toFile: keyFile, atomically: true, encoding: .utf8)
        try await TestDatabase.waitForHorizon(url)
        #expect(try await ledger(["digest", "--database-url", url, "--signing-key", keyFile]) == 0)
        #expect(try await ledger(["verify", "--database-url", url, "--signing-key", keyFile]) == 0)
        let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
        try connection.execute("SET session_replication_role = replica; DELETE FROM ledger.events WHERE stream_version = 5")
        let publicKey = Array(key.publicKey.rawRepresentation).map { String(format: "%02x", $0) }.joined()
        #expect(try await ledger(["verify", "--database-url", url, "--digest-public-key", publicKey]) == 1)
    }
}

@Suite struct AppStoreDecodeCommandTests {
    @Test func aDirectoryOrMissingFileIsAUsageErrorNotACrash() async throws {
        #expect(try await ledger(["appstore", "decode", "--bundle-id", "com.example", "--environment", "Production", NSTemporaryDirectory()]) == 2)
        #expect(try await ledger(["appstore", "decode", "--bundle-id", "com.example", "--environment", "Production", "/nonexistent/file"]) == 2)
    }

    @Test func garbageIsInvalidWithExitOne() async throws {
        let input = file("garbage.txt")
        try "definitely not a receipt".write(toFile: input, atomically: true, encoding: .utf8)
        #expect(try await ledger(["appstore", "decode", "--bundle-id", "com.example", "--environment", "Production", input]) == 1)
    }
}
