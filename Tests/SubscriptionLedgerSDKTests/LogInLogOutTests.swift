import AppStoreSamples
import Foundation
import PostgresTestSupport
import Testing

@testable import SubscriptionLedgerSDKCore

/// `logIn` / `logOut` against a real `ledger serve`, under each transfer policy: a device whose anonymous user bought
/// a lifetime purchase logs in as an account; the policy decides whether the purchase follows, and the SDK's user,
/// cookie, snapshot and live stream follow the answer.
@Suite(.serialized) struct LogInLogOutTests {
    /// A device that bought `lifetime` (transaction `transaction`) as its anonymous user.
    @MainActor static func anonymousBuyer(
        _ server: LedgerTestServer, policy: String, transaction: String
    ) async throws -> (PurchaseManager, SDKTenant, anonymous: String) {
        let tenant = try await SDKTenant.create(on: server, transferPolicy: policy)
        let signer = try XcodeSigner()
        var configuration = SDKAgainstLedgerTests.configuration(tenant, storage: SDKAgainstLedgerTests.storage())
        configuration.pollInterval = .seconds(600)
        let store = ScriptedStore(signer: signer, receipt: try ScriptedStore.receipt(signer, [("lifetime", transaction)]))
        let manager = PurchaseManager(configuration: configuration, store: store)
        let first = try await manager.configure(userID: nil)
        #expect(first.userID.hasPrefix("anon-"), "the ledger names an anonymous user: \(first.userID)")
        #expect(try await eventually { try await manager.fetchCustomerInfo().isEntitled(to: "pro") })
        return (manager, tenant, first.userID)
    }

    @Test(.timeLimit(.minutes(10))) @MainActor
    func underTransferTheAnonymousPurchasesFollowTheUserWhoLogsIn() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let (manager, tenant, anonymous) = try await Self.anonymousBuyer(server, policy: "transfer", transaction: "9101")
        defer { manager.shutdown() }
        let updates = try await manager.customerInfoUpdates()

        let alice = try await manager.logIn(userID: "alice")
        #expect(alice.userID == "alice" && alice.isEntitled(to: "pro"), "\(alice)")
        #expect(await manager.userID == "alice")
        #expect(await manager.engine?.jar.cookie(for: "alice") != nil, "no cookie for the new user")
        let previous = try await tenant.read(anonymous).json
        #expect((previous["entitlements"] as? [[String: Any]])?.contains { $0["is_active"] as? Bool == true } != true, "the purchase stayed")

        // The live stream now follows alice: a grant given to her reaches the app.
        try await tenant.grant("beta", to: "alice", until: Date().addingTimeInterval(86_400))
        let pushed = try await first(of: updates, within: .seconds(60)) { $0.userID == "alice" && $0.isEntitled(to: "beta") }
        #expect(pushed != nil, "the live stream did not follow the user")

        // Logging out forgets alice on the device; her purchases stay hers.
        let out = try await manager.logOut()
        #expect(out.userID.hasPrefix("anon-") && out.userID != anonymous)
        #expect(out.activeEntitlements.isEmpty && !out.isKnown)
        #expect(await manager.userID == out.userID)
        let files = LedgerFiles(configuration: try #require(manager.engine).configuration)
        #expect(files.snapshot.read() == nil, "alice's snapshot stayed on the device")
        #expect(try await manager.fetchCustomerInfo().activeEntitlements.isEmpty)
        let kept = try await tenant.read("alice").json
        #expect((kept["entitlements"] as? [[String: Any]])?.contains { $0["id"] as? String == "pro" && $0["is_active"] as? Bool == true } == true)

        // The next launch resumes the logged-out user, not alice.
        manager.shutdown()
        let relaunched = PurchaseManager(configuration: try #require(manager.engine).configuration, store: NoPurchaseStore())
        defer { relaunched.shutdown() }
        #expect(try await relaunched.configure(userID: nil).userID == out.userID)
    }

    @Test(.timeLimit(.minutes(10)), arguments: ["transfer_if_no_active", "keep_and_refuse"]) @MainActor
    func aPolicyThatKeepsThePurchasesRefusesTheLogInAndTheSDKStaysWithThePreviousUser(policy: String) async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let (manager, _, anonymous) = try await Self.anonymousBuyer(
            server, policy: policy, transaction: policy == "keep_and_refuse" ? "9201" : "9301")
        defer { manager.shutdown() }

        await #expect {
            try await manager.logIn(userID: "bob")
        } throws: { error in
            guard case LedgerError.restoreRefused(let conflicts, _) = error else { return false }
            return conflicts.map(\.ownerUserID) == [anonymous]
        }
        #expect(await manager.userID == anonymous)
        #expect(await manager.engine?.jar.cookie(for: "bob") == nil)
        let still = try await manager.fetchCustomerInfo()
        #expect(still.userID == anonymous && still.isEntitled(to: "pro"))
    }

    /// The purchase answers with the snapshot that includes it: no read after it, no stale paywall.
    @Test(.timeLimit(.minutes(10))) @MainActor
    func aPurchaseAnswersWithTheCustomerIncludingIt() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let tenant = try await SDKTenant.create(on: server)
        let signer = try XcodeSigner()
        var store = ScriptedStore(signer: signer, receipt: try ScriptedStore.receipt(signer, []))
        store.purchaseIDs = ["coins": "9401"]
        let manager = PurchaseManager(
            configuration: SDKAgainstLedgerTests.configuration(tenant, storage: SDKAgainstLedgerTests.storage()), store: store)
        defer { manager.shutdown() }
        let before = try await manager.configure(userID: "buyer")
        #expect(before.unconsumedPurchases.isEmpty)

        guard case .purchased(let transactionID, let info?) = try await manager.purchase(productID: "coins") else {
            Issue.record("the purchase did not answer with the customer")
            return
        }
        #expect(transactionID == "9401")
        #expect(info.unconsumedPurchases.map(\.transactionID) == ["9401"])
        #expect(info.oneTimePurchases.first { $0.transactionID == "9401" }?.type == .consumable)
        #expect(manager.customerInfo == info)
        let consumed = try await manager.consume(transactionID: "9401")
        #expect(consumed.customerInfo?.unconsumedPurchases.isEmpty == true || consumed.customerInfo == nil)
    }

    /// The seed's calls are conveniences over the async API: the same work, reported through the delegate.
    @Test(.timeLimit(.minutes(10))) @MainActor
    func theSeedCallsRunTheAsyncAPIAndReportThroughTheDelegate() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let tenant = try await SDKTenant.create(on: server)
        let signer = try XcodeSigner()
        var store = ScriptedStore(signer: signer, receipt: try ScriptedStore.receipt(signer, []))
        store.purchaseIDs = ["lifetime": "9501"]
        let manager = PurchaseManager(
            configuration: SDKAgainstLedgerTests.configuration(tenant, storage: SDKAgainstLedgerTests.storage()), store: store)
        defer { manager.shutdown() }
        let delegate = CustomerDelegate()
        manager.delegate = delegate

        manager.purchase(product: "lifetime")  // before configure: the delegate hears the async API's error
        #expect(try await first(of: delegate.failures.stream, within: .seconds(30)) { _ in true } == .notConfigured)

        manager.configure(with: "seed-user")
        let configured = try await first(of: delegate.customers.stream, within: .seconds(60)) { $0.userID == "seed-user" }
        #expect(configured != nil)
        #expect(await manager.userID == "seed-user")

        manager.purchase(product: "lifetime")
        let bought = try await first(of: delegate.customers.stream, within: .seconds(60)) { $0.includes(transactionID: "9501") }
        #expect(bought != nil, "the seed's purchase did not reach the delegate")
        #expect(manager.customerInfo?.includes(transactionID: "9501") == true)
    }
}

/// Records the customers and failures the delegate hears.
@MainActor
final class CustomerDelegate: PurchaseManagerDelegate {
    let customers = AsyncStream<CustomerInfo>.makeStream()
    let failures = AsyncStream<LedgerError>.makeStream()

    func didUpdateProductsStatus(products: [ProductStatus]) {}
    func didUpdate(customerInfo: CustomerInfo) { customers.continuation.yield(customerInfo) }
    func didFail(with error: LedgerError) { failures.continuation.yield(error) }
}
