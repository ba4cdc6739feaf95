import Foundation

/// A transaction the store reports, as the ledger takes it.
public struct StoreTransaction: Sendable {
    /// The store's transaction id.
    public var id: String
    public var productID: String
    /// StoreKit 2's `jwsRepresentation`: the signed transaction the ledger verifies.
    public var jwsRepresentation: String
    /// Tells the store the purchase is delivered (`Transaction.finish()`); called only after the ledger recorded it.
    public var finish: @Sendable () async -> Void

    public init(id: String, productID: String, jwsRepresentation: String, finish: @escaping @Sendable () async -> Void) {
        self.id = id
        self.productID = productID
        self.jwsRepresentation = jwsRepresentation
        self.finish = finish
    }
}

/// How a store purchase ended.
public enum StorePurchaseOutcome: Sendable {
    case purchased(StoreTransaction)
    /// Waiting for approval (Ask to Buy, SCA): the transaction arrives later through `transactionUpdates()`.
    case pending
    case userCancelled
}

/// The store the SDK buys through: StoreKit 2 on Apple platforms (`StoreKitPurchaseStore` in SubscriptionLedgerSDK),
/// a scripted store in tests. The purchase flow's logic (upload, then finish; updates; restore) is the SDK core's.
public protocol PurchaseStore: Sendable {
    /// The StoreKit 1 app receipt, if the app has one (it makes the ledger issue the user's `uid` cookie).
    func appReceipt() async -> Data?
    /// The transactions that entitle the user now (`Transaction.currentEntitlements`), uploaded at configure.
    func currentEntitlements() async -> [StoreTransaction]
    /// Every transaction of the user (`Transaction.all`), for restore.
    func allTransactions() async -> [StoreTransaction]
    /// Buys `productID`; `appAccountToken` ties the purchase to the user (nil: the user id is not a UUID).
    func purchase(productID: String, appAccountToken: UUID?) async throws -> StorePurchaseOutcome
    /// Transactions that arrive outside a purchase call: renewals, Ask to Buy approvals, other devices, unfinished
    /// ones from an earlier launch (`Transaction.updates`).
    func transactionUpdates() -> AsyncStream<StoreTransaction>
    /// Brings the store's transactions up to date before a restore (`AppStore.sync()`); may ask the user to sign in.
    func sync() async throws
}

/// No store at all (a command-line tool, a server): uploads come from the app through `upload(…)` calls.
public struct NoPurchaseStore: PurchaseStore {
    public init() {}
    public func appReceipt() async -> Data? { nil }
    public func currentEntitlements() async -> [StoreTransaction] { [] }
    public func allTransactions() async -> [StoreTransaction] { [] }
    public func purchase(productID: String, appAccountToken: UUID?) async throws -> StorePurchaseOutcome {
        throw LedgerError.store("no store: this platform has no StoreKit")
    }
    public func transactionUpdates() -> AsyncStream<StoreTransaction> { AsyncStream { $0.finish() } }
    public func sync() async throws {}
}

/// What happens to queued uploads, for progress and tests.
public enum UploadEvent: Sendable, Equatable {
    case enqueued(PendingUpload)
    /// Recorded by the ledger: `recorded` new events, `alreadyKnown` facts it had (a re-send records nothing twice).
    case delivered(PendingUpload, recorded: Int, alreadyKnown: Int)
    /// Not delivered (network, 5xx): tried again at `retryAt`.
    case willRetry(PendingUpload, LedgerError, retryAt: Date)
    /// Refused for good (4xx): dropped from the queue.
    case refused(PendingUpload, LedgerError)
}
