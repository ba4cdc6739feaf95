import AppStoreSamples
import Foundation
import PostgresTestSupport
import Testing

@testable import SubscriptionLedgerSDKCore

/// The app records its user's consent to consumption answers through the SDK (public key, the user's cookie).
@Suite(.serialized) struct ConsumptionConsentSDKTests {
    @Test(.timeLimit(.minutes(10))) @MainActor
    func theAppRecordsAndWithdrawsItsUsersConsent() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let tenant = try await SDKTenant.create(on: server)
        let signer = try XcodeSigner()
        let store = ScriptedStore(signer: signer, receipt: try ScriptedStore.receipt(signer, [("lifetime", "8001")]))
        let manager = PurchaseManager(
            configuration: SDKAgainstLedgerTests.configuration(tenant, storage: SDKAgainstLedgerTests.storage()),
            store: store)
        defer { manager.shutdown() }
        await #expect(throws: LedgerError.notConfigured) { try await manager.recordConsumptionConsent(true) }
        try await manager.configure(userID: "user-8")

        let given = try await manager.recordConsumptionConsent(true)
        #expect(given.consented && given.source == .app)
        let withdrawn = try await manager.recordConsumptionConsent(false)
        #expect(!withdrawn.consented && withdrawn.source == .app)

        // Both are in the user's history, as the backend reads it.
        let history = try await HTTP.send(
            "GET", tenant.baseURL.appendingPathComponent("v1/users/user-8/events"),
            headers: ["Authorization": "Bearer \(tenant.secretKey)"])
        let consents = (history.json["events"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "user.consumption_consent_recorded" }
        #expect(consents.map { ($0["payload"] as? [String: Any])?["consented"] as? Bool } == [true, false], "\(history.text)")
    }
}
