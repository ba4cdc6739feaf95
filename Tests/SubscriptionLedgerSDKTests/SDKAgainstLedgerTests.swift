import AppStoreSamples
import Foundation
import PostgresTestSupport
import Testing

@testable import SubscriptionLedgerSDKCore

/// The SDK core against a real `ledger serve` on a real PostgreSQL.
@Suite(.serialized) struct SDKAgainstLedgerTests {
    static func configuration(_ tenant: SDKTenant, storage: URL) -> LedgerConfiguration {
        LedgerConfiguration(
            baseURL: tenant.baseURL, apiKey: tenant.publicKey, storageDirectory: storage,
            retry: RetryPolicy(initialDelay: .milliseconds(100), maximumDelay: .milliseconds(500), jitter: 0),
            pollInterval: .seconds(1), requestTimeout: 10)
    }

    static func storage() -> URL { URL(fileURLWithPath: TestScratch.path("sdk-storage"), isDirectory: true) }

    @Test(.timeLimit(.minutes(10))) @MainActor
    func configureUploadsTheReceiptAndTheSeedCallsReportThroughTheDelegate() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let tenant = try await SDKTenant.create(on: server)
        let signer = try XcodeSigner()
        let store = ScriptedStore(signer: signer, receipt: try ScriptedStore.receipt(signer, [("lifetime", "1001")]))
        let manager = PurchaseManager(configuration: Self.configuration(tenant, storage: Self.storage()), store: store)
        defer { manager.shutdown() }
        let delegate = RecordingDelegate()
        manager.delegate = delegate

        // Before configure: a typed error, never a trap.
        await #expect(throws: LedgerError.notConfigured) { try await manager.fetchCustomerInfo().productsStatus }
        await #expect(throws: LedgerError.notConfigured) {
            try await PurchaseManager(configuration: nil, store: store).configure(userID: "x")
        }

        manager.configure(with: "user-1")  // the seed's call: returns at once, the delegate hears of the status
        let configured = try await delegate.next(within: .seconds(90)) { $0.contains(ProductStatus(id: "lifetime", status: .active)) }
        #expect(configured != nil)
        manager.productsStatus()
        let products = try #require(try await delegate.next(within: .seconds(90)) { _ in true })
        #expect(products.contains(ProductStatus(id: "lifetime", status: .active)))
        #expect(try await manager.fetchCustomerInfo().productsStatus.contains(ProductStatus(id: "lifetime", status: .active)))
        #expect(try await manager.fetchCustomerInfo().entitlements.contains { $0.id == "pro" && $0.isActive })
        #expect(await manager.userID == "user-1")
    }

    /// Pushed, not polled: with polling every 10 minutes, the change can only arrive through the live stream. How fast
    /// it arrives is a figure of `Benchmarks/run.sh` (the live phase's commit-to-client latency), not a timed assertion
    /// on a shared machine; the deadline here only bounds a hang.
    @Test(.timeLimit(.minutes(10))) @MainActor
    func aNotificationReachesTheDelegateAndTheStreamThroughTheLiveStream() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let tenant = try await SDKTenant.create(on: server)
        let signer = try XcodeSigner()
        let user = UUID().uuidString.lowercased()  // token_is_app_user_id: Apple's appAccountToken names the user
        var configuration = Self.configuration(tenant, storage: Self.storage())
        configuration.pollInterval = .seconds(600)
        let manager = PurchaseManager(
            configuration: configuration,
            store: ScriptedStore(signer: signer, receipt: try ScriptedStore.receipt(signer, [])))
        defer { manager.shutdown() }
        let delegate = RecordingDelegate()
        manager.delegate = delegate
        let updates = try await manager.customerInfoUpdates()
        let status = try await manager.configure(userID: user)
        #expect(!status.productsStatus.contains { $0.isActive })
        // The stream delivers changes only: a notification posted before the live stream connects is in its snapshot,
        // one posted after comes as an event; either way the change below arrives.
        let posted = try await tenant.notifyOneTimeCharge(user: user, product: "lifetime", transactionID: "7001", signer: signer)
        #expect(posted.status == 200, "\(posted.text)")
        let fromDelegate = try await delegate.next(within: .seconds(60)) { $0.contains(ProductStatus(id: "lifetime", status: .active)) }
        #expect(fromDelegate != nil, "the delegate did not hear of the notification")
        let fromStream = try await first(of: updates, within: .seconds(60)) {
            $0.productsStatus.contains(ProductStatus(id: "lifetime", status: .active))
        }
        #expect(fromStream?.activeEntitlements == ["pro"])
    }

    /// A support grant reaches the app as an entitlement like a purchase's: pushed by the live stream, then in every
    /// status the SDK reads, with the grant as its source.
    @Test(.timeLimit(.minutes(10))) @MainActor
    func aSupportGrantReachesTheAppsEntitlementsThroughTheLiveStream() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let tenant = try await SDKTenant.create(on: server)
        var configuration = Self.configuration(tenant, storage: Self.storage())
        configuration.pollInterval = .seconds(600)
        let manager = PurchaseManager(
            configuration: configuration, store: ScriptedStore(signer: try XcodeSigner(), receipt: try ScriptedStore.receipt(try XcodeSigner(), [])))
        defer { manager.shutdown() }
        let updates = try await manager.customerInfoUpdates()
        let status = try await manager.configure(userID: "grant-user")
        #expect(!status.activeEntitlements.contains("pro"))
        let expires = ISO8601DateFormatter().string(from: Date().addingTimeInterval(7 * 86_400))
        let given = try await HTTP.send(
            "POST", tenant.baseURL.appendingPathComponent("v1/users/grant-user/grants"), headers: ["Authorization": "Bearer \(tenant.secretKey)"],
            body: #"{"entitlement_id":"pro","expires_at":"\#(expires)","reason":"beta tester"}"#)
        #expect(given.status == 201, "\(given.text)")
        let pushed = try await first(of: updates, within: .seconds(60)) { $0.activeEntitlements.contains("pro") }
        #expect(pushed != nil, "the live stream did not bring the grant")
        let entitlement = try await manager.fetchCustomerInfo().entitlements.first { $0.id == "pro" }
        #expect(entitlement?.isActive == true && entitlement?.isGrant == true, "\(String(describing: entitlement))")
    }

    @Test(.timeLimit(.minutes(10))) @MainActor
    func anUploadQueuedWhileTheServerIsDownIsDeliveredOnceAfterItRestarts() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let tenant = try await SDKTenant.create(on: server)
        let signer = try XcodeSigner()
        let storage = Self.storage()
        let store = ScriptedStore(signer: signer, receipt: try ScriptedStore.receipt(signer, [("lifetime", "2001")]))
        let manager = PurchaseManager(configuration: Self.configuration(tenant, storage: storage), store: store)
        defer { manager.shutdown() }
        try await manager.configure(userID: "user-2")
        // The status the app caches (read-your-writes may answer before the views on a busy machine).
        #expect(
            try await eventually { try await manager.fetchCustomerInfo().productsStatus.contains(ProductStatus(id: "lifetime", status: .active)) })
        let events = try await manager.uploadEvents()

        await server.kill()
        let coins = try store.transaction(id: "2002", product: "coins", type: "Consumable")
        #expect(try await manager.uploadTransactions([coins.jwsRepresentation]) == false)  // queued, not delivered
        // Another upload behind the failing one answers at once that it is queued (not when the network is back).
        #expect(try await manager.uploadTransactions([coins.jwsRepresentation]) == false)
        let queueFile = LedgerFiles(configuration: Self.configuration(tenant, storage: storage)).queue
        #expect(queueFile.read()?.count == 2, "the uploads are kept on disk")

        // An app started meanwhile (another manager on the same storage) starts offline from the cached status.
        let offline = PurchaseManager(configuration: Self.configuration(tenant, storage: storage), store: NoPurchaseStore())
        let cached = try await offline.configure(userID: "user-2")
        #expect(cached.source == .offline)
        #expect(cached.productsStatus.contains(ProductStatus(id: "lifetime", status: .active)))
        offline.shutdown()

        try await server.start()
        let delivered = try await first(of: events, within: .seconds(90)) { if case .delivered = $0 { true } else { false } }
        guard case .delivered(_, let recorded, _) = try #require(delivered) else { return }
        #expect(recorded > 0)
        // The second, in order after it: the same transaction, so nothing new.
        let second = try await first(of: events, within: .seconds(90)) { if case .delivered = $0 { true } else { false } }
        guard case .delivered(_, let recordedAgain, let known) = try #require(second) else { return }
        #expect(recordedAgain == 0 && known > 0)
        #expect(queueFile.read()?.isEmpty == true)
        let coinEvents = try await server.recordedEvents(originalTransactionID: "2002")
        // Sent again (as after an answer lost to the network): the ledger records nothing twice.
        let again = try await manager.engine!.client.recordTransactions(
            "user-2", signed: [coins.jwsRepresentation],
            cookie: await manager.engine!.jar.cookie(for: "user-2"))
        #expect(again.0.recorded == 0)
        #expect(again.0.alreadyKnown > 0)
        #expect(coinEvents > 0)
        #expect(try await server.recordedEvents(originalTransactionID: "2002") == coinEvents)
        #expect(try await eventually { try await manager.unconsumedPurchases().map(\.transactionID) == ["2002"] })
    }

    @Test(.timeLimit(.minutes(10))) @MainActor
    func aPurchaseIsFinishedOnlyAfterTheLedgerRecordedItThenConsumed() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let tenant = try await SDKTenant.create(on: server)
        let signer = try XcodeSigner()
        var store = ScriptedStore(signer: signer, receipt: try ScriptedStore.receipt(signer, []))
        store.purchaseIDs = ["coins": "3001"]
        store.onFinish = { id in (try? await server.recordedEvents(originalTransactionID: id)) ?? 0 > 0 }
        let manager = PurchaseManager(configuration: Self.configuration(tenant, storage: Self.storage()), store: store)
        defer { manager.shutdown() }
        try await manager.configure(userID: "user-3")

        let bought = try await manager.purchase(productID: "coins")
        guard case .purchased(let transactionID, _) = bought else {
            Issue.record("not purchased: \(bought)")
            return
        }
        #expect(transactionID == "3001")
        let finished = await store.finished.entries
        #expect(finished.map(\.id) == ["3001"])
        #expect(finished.first?.recordedFirst == true, "finish() ran before the ledger had the transaction")
        #expect(try await eventually { try await manager.unconsumedPurchases().map(\.transactionID) == ["3001"] })
        try await manager.consume(transactionID: "3001")
        #expect(try await eventually { try await manager.unconsumedPurchases().isEmpty })
        await #expect(throws: LedgerError.self) { try await manager.consume(transactionID: "3001") }
        do {
            try await manager.consume(transactionID: "3001")
        } catch let LedgerError.server(error) {
            #expect(error.code == .alreadyConsumed)
            #expect(error.status == 409)
        }
        #expect(try await manager.purchase(productID: "unknown") == .cancelled)
    }

    /// A StoreKit 2 app has no receipt: its current entitlements' signed transactions get the user's cookie
    /// (`POST /uploadTransactions`), and the public key then acts for that user, and only that user.
    @Test(.timeLimit(.minutes(10))) @MainActor
    func aStoreKit2AppWithoutAReceiptStartsFromItsCurrentEntitlements() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let tenant = try await SDKTenant.create(on: server)
        let signer = try XcodeSigner()
        var store = ScriptedStore(signer: signer, receipt: nil)
        // No appAccountToken (the user id is not a UUID): only the upload links the purchase to the user.
        store.entitlements = [try store.transaction(id: "6001", product: "lifetime", type: "Non-Consumable")]
        store.purchaseIDs = ["coins": "6002"]
        store.onFinish = { id in (try? await server.recordedEvents(originalTransactionID: id)) ?? 0 > 0 }
        let manager = PurchaseManager(configuration: Self.configuration(tenant, storage: Self.storage()), store: store)
        defer { manager.shutdown() }

        let status = try await manager.configure(userID: "sk2-user")
        #expect(status.userID == "sk2-user")
        #expect(status.source == .ledger)
        #expect(
            try await eventually {
                let now = try await manager.fetchCustomerInfo()
                return now.productsStatus.contains(ProductStatus(id: "lifetime", status: .active)) && now.activeEntitlements == ["pro"]
            })
        let finished = await store.finished.entries
        #expect(finished.map(\.id) == ["6001"])
        #expect(finished.first?.recordedFirst == true, "finish() ran before the ledger had the transaction")

        // The cookie the upload set is kept, and reads this user only.
        let engine = try #require(manager.engine)
        let cookie = try #require(await engine.jar.cookie(for: "sk2-user"))
        #expect(try await engine.client.userState("sk2-user", cookie: cookie).body.appUserID == "sk2-user")
        await #expect { try await engine.client.userState("alice", cookie: cookie) } throws: { error in
            guard case LedgerError.server(let refusal) = error else { return false }
            return refusal.status == 403
        }
        // With it the public key buys and consumes as any other user.
        guard case .purchased(let transactionID, _) = try await manager.purchase(productID: "coins") else {
            Issue.record("the purchase was not recorded")
            return
        }
        #expect(transactionID == "6002")
        #expect(try await eventually { try await manager.unconsumedPurchases().map(\.transactionID) == ["6002"] })
        try await manager.consume(transactionID: "6002")
        #expect(try await manager.unconsumedPurchases().isEmpty)
    }

    /// When the app's transfer policy keeps the entitlements with another user, configure says so (no cookie is set).
    @Test(.timeLimit(.minutes(10))) @MainActor
    func aStoreKit2StartRefusedByTheKeepPolicyIsATypedError() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let tenant = try await SDKTenant.create(on: server, transferPolicy: "keep_and_refuse")
        let signer = try XcodeSigner()
        var aliceStore = ScriptedStore(signer: signer, receipt: nil)
        aliceStore.entitlements = [try aliceStore.transaction(id: "6101", product: "lifetime", type: "Non-Consumable")]
        let alice = PurchaseManager(configuration: Self.configuration(tenant, storage: Self.storage()), store: aliceStore)
        defer { alice.shutdown() }
        // configure answers with the status the server's views held within its read-your-writes wait; a busy server
        // may answer before they include the upload, so the entitlement is awaited (the refusal reads the log).
        try await alice.configure(userID: "alice")
        #expect(try await eventually { try await alice.fetchCustomerInfo().activeEntitlements == ["pro"] })

        let bob = PurchaseManager(configuration: Self.configuration(tenant, storage: Self.storage()), store: aliceStore)
        defer { bob.shutdown() }
        await #expect {
            try await bob.configure(userID: "bob")
        } throws: { error in
            guard case LedgerError.restoreRefused(let conflicts, _) = error else { return false }
            return conflicts == [RestoreConflict(originalTransactionID: "6101", ownerUserID: "alice")]
        }
        #expect(await bob.engine?.jar.cookie(for: "bob") == nil)
    }

    @Test(.timeLimit(.minutes(10))) @MainActor
    func restoreRefusedByTheKeepPolicyIsATypedError() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let tenant = try await SDKTenant.create(on: server, transferPolicy: "keep_and_refuse")
        let signer = try XcodeSigner()
        let alice = PurchaseManager(
            configuration: Self.configuration(tenant, storage: Self.storage()),
            store: ScriptedStore(signer: signer, receipt: try ScriptedStore.receipt(signer, [("lifetime", "4001")])))
        defer { alice.shutdown() }
        try await alice.configure(userID: "alice")
        #expect(try await eventually { try await alice.fetchCustomerInfo().activeEntitlements == ["pro"] })

        var bobStore = ScriptedStore(signer: signer, receipt: nil)
        bobStore.restorable = [try bobStore.transaction(id: "4001", product: "lifetime", type: "Non-Consumable")]
        bobStore.receipt = try ScriptedStore.receipt(signer, [])
        let bob = PurchaseManager(configuration: Self.configuration(tenant, storage: Self.storage()), store: bobStore)
        defer { bob.shutdown() }
        try await bob.configure(userID: "bob")
        await #expect {
            try await bob.restore()
        } throws: { error in
            guard case LedgerError.restoreRefused(let conflicts, _) = error else { return false }
            return conflicts == [RestoreConflict(originalTransactionID: "4001", ownerUserID: "alice")]
        }
        #expect(try await bob.fetchCustomerInfo().activeEntitlements.isEmpty)
    }

    @Test(.timeLimit(.minutes(10))) @MainActor
    func aPublicKeyNeverReachesAnotherUser() async throws {
        let server = try await LedgerTestServer.started()
        defer { Task { await server.kill() } }
        let tenant = try await SDKTenant.create(on: server)
        let signer = try XcodeSigner()
        let storage = Self.storage()  // one device, two users one after the other
        let alice = PurchaseManager(
            configuration: Self.configuration(tenant, storage: storage),
            store: ScriptedStore(signer: signer, receipt: try ScriptedStore.receipt(signer, [("lifetime", "5001")])))
        try await alice.configure(userID: "alice")
        alice.shutdown()
        let bob = PurchaseManager(
            configuration: Self.configuration(tenant, storage: storage),
            store: ScriptedStore(signer: signer, receipt: try ScriptedStore.receipt(signer, [])))
        defer { bob.shutdown() }
        let status = try await bob.configure(userID: "bob")
        #expect(status.userID == "bob")
        #expect(status.activeEntitlements.isEmpty, "bob sees alice's purchase")

        let engine = try #require(bob.engine)
        let bobCookie = try #require(await engine.jar.cookie(for: "bob"))
        #expect(await engine.jar.cookie(for: "alice") != bobCookie)
        // Bob's cookie (or none) never reads alice, whatever the endpoint.
        for cookie in [bobCookie, nil] {
            await #expect { try await engine.client.userState("alice", cookie: cookie) } throws: { error in
                guard case LedgerError.server(let refusal) = error else { return false }
                return refusal.status == 403 || refusal.status == 401
            }
            await #expect(throws: LedgerError.self) { try await engine.client.unconsumed("alice", cookie: cookie) }
        }
        // A cookie edited to name alice is refused too.
        var forged = bobCookie
        forged.uid = "alice"
        await #expect(throws: LedgerError.self) { try await engine.client.userState("alice", cookie: forged) }
        // The live stream likewise.
        let updater = LiveUpdater(
            client: engine.client, userID: "alice", cookie: { bobCookie }, onState: { _, _ in }, poll: {}, log: { _ in },
            policy: LiveConnectionPolicy())
        let (ending, _) = await updater.hold(cursor: nil)
        #expect(ending == .refused(status: 403))
    }
}

/// Records what the delegate hears, as a stream the tests wait on.
@MainActor
final class RecordingDelegate: PurchaseManagerDelegate {
    let heard = AsyncStream<[ProductStatus]>.makeStream()

    func didUpdateProductsStatus(products: [ProductStatus]) {
        heard.continuation.yield(products)
    }

    /// The next products heard (in order, from the first not taken yet) that satisfy `check`, or nil after `timeout`.
    func next(within timeout: Duration, _ check: @escaping @Sendable ([ProductStatus]) -> Bool) async throws -> [ProductStatus]? {
        try await first(of: heard.stream, within: timeout, where: check)
    }
}

/// The first element of `stream` satisfying `check` within `timeout`, else nil.
func first<Element: Sendable>(
    of stream: AsyncStream<Element>, within timeout: Duration,
    where check: @escaping @Sendable (Element) -> Bool
) async throws -> Element? {
    try await withThrowingTaskGroup(of: Element?.self) { group in
        group.addTask {
            for await element in stream where check(element) { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: max(timeout, .zero))  // the deadline
            return nil
        }
        let result = try await group.next() ?? nil
        group.cancelAll()
        return result
    }
}
