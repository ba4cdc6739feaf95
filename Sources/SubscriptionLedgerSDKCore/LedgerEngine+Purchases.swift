import Foundation

/// The store's purchases: buying, restoring, the transactions that arrive on their own, consuming. Each answers with
/// the customer as the ledger knows them once it recorded the purchase (read with the write's token), so an app
/// never shows the paywall again right after a payment.
extension LedgerEngine {
    func purchase(productID: String) async throws -> PurchaseResult {
        let (user, _) = try requireUser()
        // With the `token_is_app_user_id` policy the ledger links the purchase to the user its appAccountToken names,
        // which works only for user ids that are UUIDs.
        let outcome = try await fromStore { try await store.purchase(productID: productID, appAccountToken: UUID(uuidString: user)) }
        switch outcome {
        case .userCancelled: return .cancelled
        case .pending: return .pending
        case .purchased(let transaction):
            finishers[transaction.id] = transaction.finish
            switch try await upload(.transactions([transaction.jwsRepresentation]), for: user, transactionIDs: [transaction.id]) {
            case .delivered(let delivery):
                let info = try? await customerInfoAfterWrite(delivery.readAfter, including: transaction.id)
                return .purchased(transactionID: transaction.id, customerInfo: info)
            case .queued:
                return .queued(transactionID: transaction.id)
            }
        }
    }

    /// The customer right after a write the ledger acknowledged. The ledger answers a write once its read models
    /// include it (the write's token keeps the read from a status cache or a replica that has not followed it), but that wait is
    /// bounded (2 s by default) and a busy ledger may answer before: a snapshot without `transactionID` is read
    /// again, a few times over about ten seconds, before the last one is returned as it is.
    func customerInfoAfterWrite(_ readAfter: String?, including transactionID: String? = nil) async throws -> CustomerInfo {
        var info = try await customerInfo(readAfter: readAfter)
        // The kept snapshot (the ledger unreachable since the write) predates the write: not an answer to it.
        guard info.source == .ledger else { throw LedgerError.transport("the ledger could not be read after the write") }
        guard let transactionID else { return info }
        var delay = Duration.milliseconds(100)
        for _ in 0..<8 where !info.includes(transactionID: transactionID) && info.source == .ledger {
            try await Task.sleep(for: delay)  // the ledger's projections catch up; it has no event a client can await
            delay = min(delay * 2, .seconds(2))
            info = try await customerInfo(readAfter: readAfter)
        }
        return info
    }

    /// A store call whose errors become `LedgerError.store` (StoreKit's own errors, e.g. a failed sign-in).
    func fromStore<T>(_ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch let error as LedgerError {
            throw error
        } catch {
            throw LedgerError.store(error.localizedDescription)
        }
    }

    func restore() async throws -> RestoreResult {
        let (user, cookie) = try requireUser()
        try await fromStore { try await store.sync() }
        let signed = await store.allTransactions().map(\.jwsRepresentation)
        let receipt = await store.appReceipt()
        guard !signed.isEmpty || receipt != nil else { throw LedgerError.store("the store has no purchases to restore") }
        let (result, readAfter) = try await client.restore(user, signedTransactions: signed, receipt: receipt, cookie: cookie)
        return RestoreResult(restoredTransactionIDs: result.restored, customerInfo: try? await customerInfoAfterWrite(readAfter))
    }

    func consume(transactionID: String) async throws -> ConsumeResult {
        let (user, cookie) = try requireUser()
        let (result, readAfter) = try await client.consume(user, transactionID: transactionID, cookie: cookie)
        return ConsumeResult(
            originalTransactionID: result.originalTransactionID, consumedAt: try LedgerDates.required(result.consumedAt, "consumed_at"),
            customerInfo: try? await customerInfoAfterWrite(readAfter))
    }

    func recordConsumptionConsent(_ consented: Bool) async throws -> ConsumptionConsentResult {
        let (user, cookie) = try requireUser()
        let result = try await client.recordConsumptionConsent(user, consented: consented, cookie: cookie)
        return ConsumptionConsentResult(
            consented: result.consented, source: ConsumptionConsentResult.Source(rawValue: result.source) ?? .app,
            recordedAt: try LedgerDates.required(result.recordedAt, "recorded_at"))
    }

    func startUpdatesListener() {
        updates?.cancel()
        let transactions = store.transactionUpdates()
        updates = Task { [weak self] in
            for await transaction in transactions {
                await self?.received(transaction)
            }
        }
    }

    /// A transaction from outside a purchase call: upload it; the sender finishes it once recorded.
    func received(_ transaction: StoreTransaction) async {
        guard let userID else { return }
        finishers[transaction.id] = transaction.finish
        guard
            case .delivered(let delivery)? = try? await upload(
                .transactions([transaction.jwsRepresentation]), for: userID, transactionIDs: [transaction.id])
        else { return }
        _ = try? await customerInfoAfterWrite(delivery.readAfter)
    }
}

/// How `PurchaseManager.purchase(productID:)` ended.
public enum PurchaseResult: Sendable, Equatable {
    /// Bought, recorded by the ledger and finished in the store, with the customer as the ledger knows them now
    /// (including the purchase). Nil only when the ledger recorded it but could not be read right after;
    /// `customerInfoUpdates()` brings the snapshot when it can.
    case purchased(transactionID: String, customerInfo: CustomerInfo?)
    /// Bought, but the ledger is unreachable: the upload is queued on disk and the transaction is finished once the
    /// ledger records it (retried with backoff, and again at the next launch).
    case queued(transactionID: String)
    /// Waiting for approval (Ask to Buy, SCA); `customerInfoUpdates()` hears of it when it completes.
    case pending
    case cancelled
}

/// What `PurchaseManager.restore()` did.
public struct RestoreResult: Sendable, Equatable {
    /// The original transaction ids now attributed to the user.
    public var restoredTransactionIDs: [String]
    /// The customer after the restore (nil when the ledger could not be read right after).
    public var customerInfo: CustomerInfo?
}

/// A consumable marked delivered.
public struct ConsumeResult: Sendable, Equatable {
    public var originalTransactionID: String
    public var consumedAt: Date
    /// The customer after it (nil when the ledger could not be read right after).
    public var customerInfo: CustomerInfo?
}

/// The consent the ledger recorded for the user (whether it may tell Apple how they used a purchase they ask Apple
/// to refund).
public struct ConsumptionConsentResult: Sendable, Equatable {
    public enum Source: String, Sendable, Equatable {
        /// Recorded with the public key (the SDK).
        case app
        /// Recorded by the app's backend (the secret key).
        case backend
    }
    public var consented: Bool
    public var source: Source
    public var recordedAt: Date
}
