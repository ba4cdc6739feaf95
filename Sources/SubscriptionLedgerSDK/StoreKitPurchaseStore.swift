#if canImport(StoreKit)
    import Foundation
    import StoreKit
    import SubscriptionLedgerSDKCore

    /// StoreKit 2 as the SDK's `PurchaseStore`: purchases with the user's `appAccountToken`, signed transactions
    /// (`jwsRepresentation`) for the ledger, `Transaction.updates`, `AppStore.sync()`, and the app receipt for the
    /// ledger's `uid` cookie and StoreKit 1 apps. The logic around it (upload, then `finish()`) is the core's.
    @available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
    public struct StoreKitPurchaseStore: PurchaseStore {
        public init() {}

        public func appReceipt() async -> Data? {
            guard let url = Bundle.main.appStoreReceiptURL else { return nil }
            return try? Data(contentsOf: url)
        }

        public func currentEntitlements() async -> [StoreTransaction] {
            var transactions: [StoreTransaction] = []
            for await result in Transaction.currentEntitlements { transactions.append(Self.wrap(result)) }
            return transactions
        }

        public func allTransactions() async -> [StoreTransaction] {
            var transactions: [StoreTransaction] = []
            for await result in Transaction.all { transactions.append(Self.wrap(result)) }
            return transactions
        }

        public func purchase(productID: String, appAccountToken: UUID?) async throws -> StorePurchaseOutcome {
            guard let product = try await Product.products(for: [productID]).first else {
                throw LedgerError.store("no App Store product \(productID)")
            }
            return try await purchase(product, appAccountToken: appAccountToken)
        }

        public func purchase(_ product: Product, appAccountToken: UUID?) async throws -> StorePurchaseOutcome {
            var options: Set<Product.PurchaseOption> = []
            if let appAccountToken { options.insert(.appAccountToken(appAccountToken)) }
            switch try await product.purchase(options: options) {
            case .success(let result): return .purchased(Self.wrap(result))
            case .pending: return .pending
            case .userCancelled: return .userCancelled
            @unknown default: return .pending
            }
        }

        public func transactionUpdates() -> AsyncStream<StoreTransaction> {
            AsyncStream { continuation in
                let task = Task {
                    // Unfinished transactions of an earlier launch first (e.g. an upload that never reached the ledger).
                    for await result in Transaction.unfinished { continuation.yield(Self.wrap(result)) }
                    for await result in Transaction.updates { continuation.yield(Self.wrap(result)) }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }

        public func sync() async throws {
            try await AppStore.sync()
        }

        /// The ledger verifies the signature itself, so unverified transactions are passed on too: it refuses them with
        /// a typed error rather than the SDK dropping them silently.
        static func wrap(_ result: VerificationResult<Transaction>) -> StoreTransaction {
            let transaction = result.unsafePayloadValue
            return StoreTransaction(
                id: String(transaction.id), productID: transaction.productID,
                jwsRepresentation: result.jwsRepresentation, finish: { await transaction.finish() })
        }
    }

    @available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
    extension PurchaseManager {
        /// Buys a StoreKit product (the seed's `purchase(product:)` with the product itself).
        public func purchase(product: Product) async throws -> PurchaseResult {
            try await purchase(productID: product.id)
        }
    }
#endif
