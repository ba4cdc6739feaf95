import Foundation

/// Hears of the customer as they change (a purchase, a renewal, a refund Apple notified), on the main actor.
@MainActor
public protocol PurchaseManagerDelegate: AnyObject {
    /// The seed API's products and their status changed (or were read again by `productsStatus()`).
    func didUpdateProductsStatus(products: [ProductStatus])
    /// The customer's snapshot changed. Optional.
    func didUpdate(customerInfo: CustomerInfo)
    /// A call of the seed API (which returns nothing) failed. Optional.
    func didFail(with error: LedgerError)
}

extension PurchaseManagerDelegate {
    public func didUpdate(customerInfo: CustomerInfo) {}
    public func didFail(with error: LedgerError) {}
}

/// The app's entry point to the ledger.
///
/// ```swift
/// let ledger = PurchaseManager.setUp(LedgerConfiguration(baseURL: url, apiKey: publicKey), store: StoreKitPurchaseStore())
/// let customer = try await ledger.logIn(userID: account.id)
/// if customer.isEntitled(to: "pro") { unlockPro() }
/// for await customer in await ledger.customerInfoUpdates() { render(customer) }
/// ```
///
/// Every call is `async` and returns its answer or throws a `LedgerError` (`.notConfigured` before `configure` or
/// `logIn`). The seed's calls (`configure(with:)`, `productsStatus()`, `purchase(product:)`) are kept as
/// conveniences over them: they return at once and report through the `delegate`.
@MainActor
public final class PurchaseManager {
    private static var shared: PurchaseManager?

    /// The shared instance: the one `setUp` made, else one configured from the Info.plist (`SubscriptionLedgerURL`,
    /// `SubscriptionLedgerAPIKey`) without a store, else one whose calls fail with `notConfigured`.
    public static func sharedInstance() -> PurchaseManager {
        if let shared { return shared }
        let made = PurchaseManager(configuration: LedgerConfiguration.fromMainBundle(), store: NoPurchaseStore())
        shared = made
        return made
    }

    /// Makes the shared instance for `configuration` and `store` (replacing an earlier one).
    @discardableResult
    public static func setUp(_ configuration: LedgerConfiguration, store: any PurchaseStore = NoPurchaseStore()) -> PurchaseManager {
        shared?.shutdown()
        let made = PurchaseManager(configuration: configuration, store: store)
        shared = made
        return made
    }

    public weak var delegate: (any PurchaseManagerDelegate)?
    /// The last known snapshot of the customer (from the ledger, or the kept signed one offline).
    public private(set) var customerInfo: CustomerInfo?

    let engine: LedgerEngine?
    private var forwarding: Task<Void, Never>?

    /// A manager of its own (tests, several ledgers); most apps use `setUp` and `sharedInstance()`.
    public init(configuration: LedgerConfiguration?, store: any PurchaseStore) {
        engine = configuration.map { LedgerEngine(configuration: $0, store: store) }
    }

    /// Forwards the engine's snapshots to `customerInfo` and the delegate; subscribed before the first one.
    private func startForwarding(_ engine: LedgerEngine) async {
        guard forwarding == nil else { return }
        let updates = await engine.customerInfoUpdates()
        forwarding = Task { [weak self] in
            for await info in updates {
                guard let self else { return }
                self.customerInfo = info
                self.delegate?.didUpdate(customerInfo: info)
                self.delegate?.didUpdateProductsStatus(products: info.productsStatus)
            }
        }
    }

    private func requireEngine() async throws(LedgerError) -> LedgerEngine {
        guard let engine else { throw .notConfigured }
        await startForwarding(engine)
        return engine
    }

    /// Keeps `customerInfo` current with an answer (the forwarding task may deliver it a moment later).
    private func answered(_ info: CustomerInfo) -> CustomerInfo {
        customerInfo = info
        return info
    }

    // MARK: the customer

    /// Starts the SDK for `userID` (nil: the user of the last launch, else an anonymous one) and returns the customer
    /// (offline, the kept signed snapshot).
    @discardableResult
    public func configure(userID: String?) async throws -> CustomerInfo {
        answered(try await requireEngine().configure(userID: userID))
    }

    /// Switches to `userID` (your account id); the ledger moves this device's purchases to them as the app's transfer
    /// policy says. A policy that keeps them with the previous user throws `LedgerError.restoreRefused` and leaves the
    /// SDK with that user.
    @discardableResult
    public func logIn(userID: String) async throws -> CustomerInfo {
        answered(try await requireEngine().logIn(userID: userID))
    }

    /// Ends the user's session on this device: their snapshot is forgotten and the SDK works for a new anonymous user
    /// (whose purchases start empty; the previous user keeps theirs).
    @discardableResult
    public func logOut() async throws -> CustomerInfo {
        answered(try await requireEngine().logOut())
    }

    /// The user id the SDK works for.
    public var userID: String? {
        get async { await engine?.userID }
    }

    /// The customer as the ledger answers now; with no network, the kept signed snapshot judged at the device's
    /// clock (`CustomerInfo.source == .offline`).
    @discardableResult
    public func fetchCustomerInfo() async throws -> CustomerInfo {
        answered(try await requireEngine().customerInfo())
    }

    /// The customer each time they change (live stream, purchases, reads), until the manager shuts down.
    public func customerInfoUpdates() async throws -> AsyncStream<CustomerInfo> {
        try await requireEngine().customerInfoUpdates()
    }

    // MARK: purchases

    /// Buys a product through the store, uploads the signed transaction, finishes it once the ledger recorded it, and
    /// answers with the customer including it.
    public func purchase(productID: String) async throws -> PurchaseResult {
        let result = try await requireEngine().purchase(productID: productID)
        if case .purchased(_, let info?) = result { customerInfo = info }
        return result
    }

    /// Attributes the store's purchases to the user. When they belong to another user and the app's transfer policy
    /// keeps them there, throws `LedgerError.restoreRefused(conflicts:message:)`.
    @discardableResult
    public func restore() async throws -> RestoreResult {
        let result = try await requireEngine().restore()
        if let info = result.customerInfo { customerInfo = info }
        return result
    }

    /// Consumables bought and not consumed yet (read now; `customerInfo.unconsumedPurchases` has them too).
    public func unconsumedPurchases() async throws -> [UnconsumedPurchase] {
        try await requireEngine().unconsumed()
    }

    /// Marks a consumable delivered. `LedgerErrorCode.alreadyConsumed`, `.notConsumable`, `.refunded`,
    /// `.unknownPurchase` or `.belongsToAnotherUser` say why not.
    @discardableResult
    public func consume(transactionID: String) async throws -> ConsumeResult {
        try await requireEngine().consume(transactionID: transactionID)
    }

    /// Records the user's answer to whether the ledger may tell Apple how they used a purchase when they ask Apple for a
    /// refund (Apple's consumption request). Without a recorded yes the ledger sends Apple nothing; `false` withdraws.
    @discardableResult
    public func recordConsumptionConsent(_ consented: Bool) async throws -> ConsumptionConsentResult {
        try await requireEngine().recordConsumptionConsent(consented)
    }

    // MARK: uploads

    /// Uploads a StoreKit 1 receipt through the durable queue; returns whether it was delivered now or stays queued.
    @discardableResult
    public func uploadReceipt(_ receipt: Data) async throws -> Bool {
        let engine = try await requireEngine()
        guard let user = await engine.userID else { throw LedgerError.notConfigured }
        if case .delivered = try await engine.upload(.receipt(receipt), for: user) { return true }
        return false
    }

    /// Uploads StoreKit 2 signed transactions through the durable queue; returns whether delivered now or queued.
    @discardableResult
    public func uploadTransactions(_ signed: [String]) async throws -> Bool {
        let engine = try await requireEngine()
        guard let user = await engine.userID else { throw LedgerError.notConfigured }
        if case .delivered = try await engine.upload(.transactions(signed), for: user) { return true }
        return false
    }

    /// What happens to queued uploads (enqueued, delivered, retried, refused).
    public func uploadEvents() async throws -> AsyncStream<UploadEvent> {
        try await requireEngine().uploadEvents()
    }

    /// The uploads not delivered yet (kept on disk across launches).
    public func pendingUploads() async throws -> [PendingUpload] {
        try await requireEngine().pendingUploads
    }

    /// Sends the queued uploads now, without waiting for their backoff (e.g. when the network is back).
    public func retryUploadsNow() async throws {
        try await requireEngine().retryUploadsNow()
    }

    /// Stops the live stream, the sender and the listeners (queued uploads stay on disk for the next launch).
    public func shutdown() {
        forwarding?.cancel()
        guard let engine else { return }
        Task { await engine.shutdown() }
    }
}

// MARK: - The seed's API

/// The seed's calls, kept for apps written against it: each runs the `async` call of the same name and reports
/// through the delegate (its answer to `didUpdateProductsStatus(products:)`, a failure to `didFail(with:)`).
extension PurchaseManager {
    /// Runs `configure(userID:)`.
    @discardableResult
    public func configure(with userId: String?) -> PurchaseManager {
        report { manager in try await manager.configure(userID: userId) }
        return self
    }

    /// Runs `fetchCustomerInfo()`; the delegate's `didUpdateProductsStatus(products:)` receives the products, once
    /// (through the updates when the snapshot changed, else directly).
    public func productsStatus() {
        report { manager in
            let before = manager.customerInfo
            let info = try await manager.fetchCustomerInfo()
            if let before, before.sameFacts(as: info), before.source == info.source {
                manager.delegate?.didUpdateProductsStatus(products: info.productsStatus)
            }
        }
    }

    /// Runs `purchase(productID:)`.
    public func purchase(product productID: String) {
        report { manager in _ = try await manager.purchase(productID: productID) }
    }

    private func report(_ body: @escaping @MainActor (PurchaseManager) async throws -> Void) {
        Task { [weak self] in
            guard let self else { return }
            do {
                try await body(self)
            } catch {
                self.delegate?.didFail(with: error as? LedgerError ?? .transport("\(error)"))
            }
        }
    }
}
