import AppStoreSamples
import Foundation
@testable import SubscriptionLedgerSDKCore

/// A store that plays a script: a receipt, entitlements, transactions for restore, and purchases that succeed with
/// Xcode-signed StoreKit 2 transactions. It records each `finish()` and what `onFinish` says at that moment (the
/// tests check the ledger had recorded the transaction by then).
struct ScriptedStore: PurchaseStore {
    let signer: XcodeSigner
    var receipt: Data?
    var entitlements: [StoreTransaction] = []
    var restorable: [StoreTransaction] = []
    /// Transaction id to use for a purchase of each product.
    var purchaseIDs: [String: String] = [:]
    let finished = FinishLog()
    var onFinish: @Sendable (String) async -> Bool = { _ in true }
    let updates = AsyncStream<StoreTransaction>.makeStream()

    init(signer: XcodeSigner, receipt: Data?) {
        self.signer = signer
        self.receipt = receipt
    }

    func appReceipt() async -> Data? { receipt }
    func currentEntitlements() async -> [StoreTransaction] { entitlements }
    func allTransactions() async -> [StoreTransaction] { restorable }
    func sync() async throws {}
    func transactionUpdates() -> AsyncStream<StoreTransaction> { updates.stream }

    func purchase(productID: String, appAccountToken: UUID?) async throws -> StorePurchaseOutcome {
        guard let id = purchaseIDs[productID] else { return .userCancelled }
        return .purchased(try transaction(id: id, product: productID, type: "Consumable", token: appAccountToken?.uuidString.lowercased()))
    }

    /// An Xcode-signed StoreKit 2 transaction whose `finish` is logged.
    func transaction(id: String, product: String, type: String, token: String? = nil) throws -> StoreTransaction {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let json = AppStorePayloads.transaction(
            id: id, original: id, product: product, type: type, purchase: "\(now - 1000)", originalPurchase: now - 1000,
            expires: type == "Auto-Renewable Subscription" ? now + 30 * 86_400_000 : nil, token: token, environment: "Xcode", signed: now,
            bundleID: SDKTenant.bundleID)
        let jws = try signer.sign(json)
        let (log, check) = (finished, onFinish)
        return StoreTransaction(id: id, productID: product, jwsRepresentation: jws, finish: { await log.add(id, recordedFirst: await check(id)) })
    }

    /// An Xcode receipt holding one-time purchases `(product, transaction id)`.
    static func receipt(_ signer: XcodeSigner, _ purchases: [(String, String)]) throws -> Data {
        let base64 = try signer.receipt(
            bundleID: SDKTenant.bundleID,
            purchases: purchases.map {
                ReceiptBuilder.inAppPurchase(product: $0.0, transactionId: $0.1)
            })
        return Data(base64Encoded: base64)!
    }
}

/// The transactions finished, and whether the ledger had recorded each when it was.
actor FinishLog {
    private(set) var entries: [(id: String, recordedFirst: Bool)] = []
    func add(_ id: String, recordedFirst: Bool) { entries.append((id, recordedFirst)) }
}
