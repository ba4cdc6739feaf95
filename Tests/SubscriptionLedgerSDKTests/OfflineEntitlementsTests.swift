import AppStoreSamples
import Foundation
import PostgresTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(CryptoKit)
    import CryptoKit
#else
    import Crypto
#endif

@testable import SubscriptionLedgerSDKCore

/// The device's clock, moved by the tests (offline expiries are judged by it).
final class TestClock: Sendable {
    private let value = Mutex(Date())
    var now: Date { value.withLock { $0 } }
    func advance(days: Double) { value.withLock { $0 = $0.addingTimeInterval(days * 86_400) } }
}

/// Offline entitlements against a real `ledger serve`: the signed snapshot the SDK keeps is honoured without a
/// network until each entitlement's own expiry, refused when altered, signed by another key or too old, and a key
/// rotation on the server reaches the SDK without an update.
@Suite(.serialized) struct OfflineEntitlementsTests {
    static func configuration(_ tenant: SDKTenant, storage: URL, clock: TestClock) -> LedgerConfiguration {
        var configuration = SDKAgainstLedgerTests.configuration(tenant, storage: storage)
        configuration.pollInterval = .seconds(600)
        configuration.now = { clock.now }
        return configuration
    }

    /// Configured online with a lifetime purchase (`pro`, no expiry) and a support grant (`beta`, for three days).
    @MainActor static func configured(
        _ server: LedgerTestServer, user: String, clock: TestClock
    ) async throws -> (PurchaseManager, SDKTenant, LedgerConfiguration) {
        let tenant = try await SDKTenant.create(on: server)
        try await tenant.grant("beta", to: user, until: Date().addingTimeInterval(3 * 86_400))
        let signer = try XcodeSigner()
        let configuration = configuration(tenant, storage: SDKAgainstLedgerTests.storage(), clock: clock)
        let store = ScriptedStore(signer: signer, receipt: try ScriptedStore.receipt(signer, [("lifetime", "8\(UInt16.random(in: 100...999))")]))
        let manager = PurchaseManager(configuration: configuration, store: store)
        try await manager.configure(userID: user)
        #expect(
            try await eventually {
                let info = try await manager.fetchCustomerInfo()
                return info.activeEntitlements == ["beta", "pro"] && info.source == .ledger
            })
        #expect(LedgerFiles(configuration: configuration).snapshot.read() != nil, "the signed answer was not kept")
        return (manager, tenant, configuration)
    }

    @Test(.timeLimit(.minutes(10))) @MainActor
    func withoutANetworkEachEntitlementLastsUntilItsOwnExpiryAndAnOldSnapshotIsRefused() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let clock = TestClock()
        let (manager, _, configuration) = try await Self.configured(server, user: "offline-1", clock: clock)
        defer { manager.shutdown() }

        await server.kill()
        let offline = try await manager.fetchCustomerInfo()
        #expect(offline.source == .offline)
        #expect(offline.activeEntitlements == ["beta", "pro"])
        #expect(offline.productsStatus.contains(ProductStatus(id: "lifetime", status: .active)))

        clock.advance(days: 4)  // past the grant's expiry, within the snapshot's accepted age
        let later = try await manager.fetchCustomerInfo()
        #expect(later.source == .offline)
        #expect(later.activeEntitlements == ["pro"], "the grant outlived its expiry offline")
        #expect(later.entitlements.first { $0.id == "beta" }?.isActive == false)

        clock.advance(days: 4)  // 8 days: older than offlineEntitlementsMaximumAge (7 days)
        await #expect(throws: LedgerError.self) { try await manager.fetchCustomerInfo() }

        // A restart offline starts from nothing rather than from the refused snapshot.
        let restarted = PurchaseManager(configuration: configuration, store: NoPurchaseStore())
        defer { restarted.shutdown() }
        await #expect(throws: LedgerError.self) { try await restarted.configure(userID: "offline-1") }
    }

    @Test(.timeLimit(.minutes(10))) @MainActor
    func anAlteredOrForeignSignedSnapshotIsRefused() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let clock = TestClock()
        let (manager, _, configuration) = try await Self.configured(server, user: "offline-2", clock: clock)
        defer { manager.shutdown() }
        await server.kill()
        let file = LedgerFiles(configuration: configuration).snapshot
        let kept = try #require(file.read())
        let header = try #require(kept.header)
        #expect(header.sub == "offline-2" && header.alg == "ES256")
        #expect(try await manager.fetchCustomerInfo().isEntitled(to: "pro"), "the untouched snapshot is honoured")

        // The body altered: a product renamed (or anything else) no longer matches the signature.
        var altered = kept
        altered.body = Data(String(decoding: kept.body, as: UTF8.self).replacingOccurrences(of: "\"lifetime\"", with: "\"forever\"").utf8)
        #expect(altered.body != kept.body)
        try file.write(altered)
        await #expect(throws: LedgerError.self) { try await manager.fetchCustomerInfo() }

        // Signed by a key that is not the ledger's, under the ledger's key id or another one.
        let foreign = P256.Signing.PrivateKey()
        for keyID in [header.kid, "someone-elses-key"] {
            var forged = header
            forged.kid = keyID
            let protected = Base64URL.encode(try JSONEncoder().encode(forged))
            let signature = try foreign.signature(for: Data((protected + "." + Base64URL.encode(altered.body)).utf8))
            try file.write(SignedSnapshot(body: altered.body, signature: protected + ".." + Base64URL.encode(signature.rawRepresentation)))
            await #expect(throws: LedgerError.self, "forged under key id \(keyID)") { try await manager.fetchCustomerInfo() }
        }

        // Another user's snapshot is not this user's.
        let other = try kept.verified(
            by: try #require(StatusKeySet.kept(configuration)), user: "offline-2", now: clock.now, maximumAge: .seconds(60))
        #expect(other.sub == "offline-2")
        #expect(throws: SignedSnapshot.Refusal.otherUser("offline-2")) {
            try kept.verified(by: try #require(StatusKeySet.kept(configuration)), user: "mallory", now: clock.now, maximumAge: .seconds(60))
        }
        try file.write(kept)
        #expect(try await manager.fetchCustomerInfo().isEntitled(to: "pro"), "the original is honoured again")
    }

    /// The master key rotated on the server (`ledger keys rotate` rewrites the key file; a running server reads it
    /// again): answers are signed with the new key, which the SDK fetches when it first meets its id, and the set
    /// published during the rotation holds both keys.
    @Test(.timeLimit(.minutes(10))) @MainActor
    func aRotatedSigningKeyIsFetchedAndTrustedWithoutAnUpdate() async throws {
        let keyFile = TestScratch.path("rotating-master-key")
        let first = Self.hexKey()
        try Self.writeKeys([first], to: keyFile)
        let server = try await LedgerTestServer.started(masterKeyFile: keyFile)
        defer { Task { await server.kill() } }
        let clock = TestClock()
        let (manager, tenant, configuration) = try await Self.configured(server, user: "offline-3", clock: clock)
        defer { manager.shutdown() }
        let files = LedgerFiles(configuration: configuration)
        let firstKeyID = try #require(files.snapshot.read()?.keyID)
        #expect(files.statusKeys.read()?.keys.map(\.kid) == [firstKeyID])

        // The seed's products status is signed too, over its exact (seed-shaped) body.
        let engine = try #require(manager.engine)
        let products = try await engine.client.productsStatus(cookie: try #require(await engine.jar.cookie(for: "offline-3")))
        let pinned = try #require(StatusKeySet.kept(configuration))
        #expect(try products.snapshot?.verified(by: pinned, user: "offline-3", now: Date(), maximumAge: .seconds(60)).kid == firstKeyID)
        #expect(products.body.embedded.products.contains(Wire.ProductStatus(id: "lifetime", status: "active")))

        // Who gets a signature: the app always; a backend only when it asks.
        #expect(try await tenant.read("offline-3").headers["ledger-signature"] == nil)
        let asked = try await tenant.read("offline-3", headers: ["Ledger-Sign": "true"])
        #expect(asked.headers["ledger-signature"] != nil)
        let unclear = try await tenant.read("offline-3", headers: ["Ledger-Sign": "maybe"])
        #expect(unclear.status == 400 && unclear.text.contains("Ledger-Sign"), "\(unclear.text)")

        try Self.writeKeys([Self.hexKey(), first], to: keyFile)
        #expect(
            try await eventually {
                _ = try await manager.fetchCustomerInfo()
                return files.snapshot.read()?.keyID != firstKeyID
            }, "the answer signed with the new key was not kept")
        let published = try await HTTP.send("GET", server.baseURL.appendingPathComponent(".well-known/jwks.json"))
        let set = try JSONDecoder().decode(StatusKeySet.self, from: published.data)
        #expect(set.keys.count == 2 && set.keys.contains { $0.kid == firstKeyID })
        #expect(files.statusKeys.read()?.keys.count == 2, "the SDK did not pin the rotated set")

        await server.kill()
        let offline = try await manager.fetchCustomerInfo()
        #expect(offline.source == .offline && offline.isEntitled(to: "pro"))
    }

    static func hexKey() -> String { (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined() }

    /// Writes the key file as `ledger keys rotate` does: a new file renamed over the old one.
    static func writeKeys(_ keys: [String], to path: String) throws {
        let temporary = path + ".new"
        try (keys.joined(separator: "\n") + "\n").write(toFile: temporary, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary)
        guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}

extension StatusKeySet {
    /// The set the SDK pinned for `configuration`.
    static func kept(_ configuration: LedgerConfiguration) -> StatusKeySet? { LedgerFiles(configuration: configuration).statusKeys.read() }
}
