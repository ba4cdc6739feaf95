import ArgumentParser
import Crypto
import Foundation
import LedgerCommands
import LedgerDomain
import LedgerPrivacy
import LedgerStore
import LedgerTenancy
import PostgresClient
import PostgresTestSupport
import Testing

/// `ledger users erase`: the shell's way to erase a user, the same erasure as the API's.
@Suite(.timeLimit(.minutes(10))) struct UsersEraseCommandTests {
    @Test func theCommandErasesOnceAndSaysWhatIsWrong() async throws {
        let world = try await SyncWorld.make()
        try await world.deliver(0...3)
        let identities = IdentityStore(pool: world.pool, keys: SyncWorld.masterKey)
        let pseudonym = try #require(try await identities.find(app: world.app.id, user: SyncWorld.userA))
        let signingKey = Curve25519.Signing.PrivateKey()
        let keyFile = TestScratch.path("signing-key-\(UUID().uuidString)")
        try signingKey.rawRepresentation.map { String(format: "%02x", $0) }.joined().write(toFile: keyFile, atomically: true, encoding: .utf8)
        let base = ["users", "erase", "--database-url", world.url, "--master-key", SyncWorld.masterKeyFile]

        // Without a signing key nothing can sign the certificate: a failure that says what to pass, nothing erased.
        let unsigned = try await ledgerWithFailure(base + [world.app.id, SyncWorld.userA, "--reason", "ticket 9"])
        #expect(unsigned.code == 1 && unsigned.failure?.contains("--signing-key") == true, "\(unsigned.failure ?? "")")
        #expect(try await identities.find(app: world.app.id, user: SyncWorld.userA) == pseudonym)
        let before = try await UserReplay.snapshot(
            app: world.app.id, user: SyncWorld.userA,
            events: try await world.pool.withConnection { try ProjectionReplay.events(app: world.app.id, asOf: nil, on: $0) },
            at: LedgerClock.system.now(), catalog: Catalog(), identities: identities)
        #expect(!before.erased && before.0.appUserID == SyncWorld.userA && !before.0.productsStatus.isEmpty)
        // An id the app never named.
        let unknown = try await ledgerWithFailure(base + ["--signing-key", keyFile, world.app.id, "nobody", "--reason", "ticket 9"])
        #expect(unknown.code == 1 && unknown.failure?.contains("no user") == true, "\(unknown.failure ?? "")")
        // A reason is required.
        #expect(throws: (any Error).self) { try LedgerCommand.parseAsRoot(base + [world.app.id, SyncWorld.userA]) }

        for _ in 0..<2 {
            #expect(try await ledger(base + ["--signing-key", keyFile, world.app.id, SyncWorld.userA, "--reason", "ticket 9"]) == 0)
        }
        #expect(try await identities.find(app: world.app.id, user: SyncWorld.userA) == nil)
        #expect(try await identities.userID(app: world.app.id, pseudonym: pseudonym) == nil)
        let stored = try await world.pool.query(
            "SELECT pseudonym, erased_by, certificate::text FROM ledger.erasures WHERE app_id = \(world.app.id)"
        ).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1), try $0.decode(String.self, at: 2)) }
        #expect(stored.count == 1 && stored.first?.0 == pseudonym && stored.first?.1.contains("shell") == true, "\(stored)")
        let certificate = try JSONDecoder().decode(SignedErasureCertificate.self, from: Data(try #require(stored.first?.2).utf8))
        #expect(certificate.isValid(trusted: signingKey.publicKey))
        let recorded = try await world.pool.query(
            "SELECT count(*) FROM ledger.operator_actions WHERE action = 'user.erase' AND target = \("user:" + pseudonym)"
        ).first?.decode(Int64.self, at: 0)
        #expect(recorded == 1, "recorded once, by the erasure that happened")
        // As-of replays show the erased user's facts under the pseudonym; before, they named the user as the app does.
        let events = try await world.pool.withConnection { try ProjectionReplay.events(app: world.app.id, asOf: nil, on: $0) }
        let (replayed, erased) = try await UserReplay.snapshot(
            app: world.app.id, user: SyncWorld.userA, events: events, at: LedgerClock.system.now(), catalog: Catalog(), identities: identities)
        #expect(erased && replayed.appUserID == pseudonym && !replayed.productsStatus.isEmpty, "\(replayed)")
        let checks = try await world.checkLogAndReadModels()
        #expect(checks.replay == 0 && checks.verify == 0)
        await world.close()
    }
}
