import Foundation

/// Hears of the user's status as it changes (a purchase, a renewal, a refund notified by Apple), on the main actor.
@MainActor
public protocol PurchaseManagerDelegate: AnyObject {
    /// The user's products and their status changed (or were read again by `productsStatus()`).
    func didUpdateProductsStatus(products: [ProductStatus])
    /// A call of the seed API (which returns nothing) failed. Optional.
    func didFail(with error: LedgerError)
}

extension PurchaseManagerDelegate {
    public func didFail(with error: LedgerError) {}
}

/// The app's entry point to the ledger, held by its AppDelegate (the seed's `PurchaseManager`).
///
/// ```swift
/// PurchaseManager.setUp(LedgerConfiguration(baseURL: url, apiKey: publicKey), store: StoreKitPurchaseStore())
/// PurchaseManager.sharedInstance().configure(with: userID)
/// ```
///
/// The seed's calls (`configure(with:)`, `productsStatus()`, `purchase(product:)`) return at once and report through
/// the delegate; the `async` ones return their result or throw a `LedgerError`. Every call made before `configure`
/// fails with `LedgerError.notConfigured`.
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
    /// The last known status (from the ledger, or from the disk cache until the ledger answers).
    public private(set) var status: LedgerStatus?

    let engine: LedgerEngine?
    private var forwarding: Task<Void, Never>?

    /// A manager of its own (tests, several ledgers); most apps use `setUp` and `sharedInstance()`.
    public init(configuration: LedgerConfiguration?, store: any PurchaseStore) {
        engine = configuration.map { LedgerEngine(configuration: $0, store: store) }
    }

    /// Forwards the engine's statuses to `status` and the delegate; subscribed before the first configure publishes.
    private func startForwarding(_ engine: LedgerEngine) async {
        guard forwarding == nil else { return }
        let updates = await engine.statusUpdates()
        forwarding = Task { [weak self] in
            for await status in updates {
                guard let self else { return }
                self.status = status
                self.delegate?.didUpdateProductsStatus(products: status.products)
            }
        }
    }

    private func requireEngine() throws(LedgerError) -> LedgerEngine {
        guard let engine else { throw .notConfigured }
        return engine
    }

    /// Runs `body` for a seed call: errors go to the delegate.
    private func report(_ body: @escaping @Sendable () async throws -> Void) {
        Task { [weak self] in
            do {
                try await body()
            } catch {
                self?.delegate?.didFail(with: error as? LedgerError ?? .transport("\(error)"))
            }
        }
    }

    // MARK: the seed's API

    /// Starts the SDK for the user (nil: an anonymous user the ledger names) and uploads the receipt and the current
    /// entitlements; the delegate hears of the status.
    @discardableResult
    public func configure(with userId: String?) -> PurchaseManager {
        report { [self] in _ = try await configure(userID: userId) }
        return self
    }

    /// Reads the products' status; the delegate's `didUpdateProductsStatus(products:)` receives it, once: through the
    /// status updates when it changed something, else directly (it is this call's answer).
    public func productsStatus() {
        report { [self] in
            let answer = try await requireEngine().productsStatusPublishing()
            if !answer.published { await tellDelegate(answer.products) }
        }
    }

    /// Buys a product by its App Store product id; the delegate hears of the new status.
    public func purchase(product productID: String) {
        report { [self] in _ = try await purchase(productID: productID) }
    }

    private func tellDelegate(_ products: [ProductStatus]) {
        delegate?.didUpdateProductsStatus(products: products)
    }

    // MARK: async API

    /// Starts the SDK for `userID` and returns the status (the cached one when the ledger is unreachable).
    @discardableResult
    public func configure(userID: String?) async throws -> LedgerStatus {
        let engine = try requireEngine()
        await startForwarding(engine)
        let status = try await engine.configure(userID: userID)
        self.status = status
        return status
    }

    /// The user id the SDK works for (the ledger's anonymous id when configured without one).
    public var userID: String? {
        get async { await engine?.userID }
    }

    /// The products' status (`GET /productsStatus`).
    public func fetchProductsStatus() async throws -> [ProductStatus] {
        try await requireEngine().productsStatus()
    }

    /// Reads the status again from the ledger.
    @discardableResult
    public func refreshStatus() async throws -> LedgerStatus {
        try await requireEngine().refreshStatus()
    }

    /// The status each time it changes (live stream, purchases, refreshes), until the manager shuts down.
    public func statusUpdates() async throws -> AsyncStream<LedgerStatus> {
        try await requireEngine().statusUpdates()
    }

    /// The user's entitlements, active or not.
    public func entitlements() async throws -> [Entitlement] {
        try await requireEngine().userState().entitlements
    }

    /// The subscriptions that entitle the user now (active, grace period).
    public func activatedSubscriptions() async throws -> [Subscription] {
        try await requireEngine().userState().subscriptions.filter(\.isEntitled)
    }

    /// Consumables bought and not consumed yet: deliver them, then `consume(transactionID:)`.
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

    /// Attributes the store's purchases to the user. When they belong to another user and the app's transfer policy
    /// keeps them there, throws `LedgerError.restoreRefused(conflicts:message:)`.
    @discardableResult
    public func restore() async throws -> RestoreResult {
        try await requireEngine().restore()
    }

    /// Buys a product through the store, uploads the signed transaction and finishes it once the ledger recorded it.
    public func purchase(productID: String) async throws -> PurchaseResult {
        try await requireEngine().purchase(productID: productID)
    }

    /// Uploads a StoreKit 1 receipt through the durable queue; returns whether it was delivered now or stays queued.
    @discardableResult
    public func uploadReceipt(_ receipt: Data) async throws -> Bool {
        let engine = try requireEngine()
        guard let user = await engine.userID else { throw LedgerError.notConfigured }
        if case .delivered = try await engine.upload(.receipt(receipt), for: user) { return true }
        return false
    }

    /// Uploads StoreKit 2 signed transactions through the durable queue; returns whether delivered now or queued.
    @discardableResult
    public func uploadTransactions(_ signed: [String]) async throws -> Bool {
        let engine = try requireEngine()
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
