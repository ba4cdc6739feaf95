import AppStoreIngest
import AppStoreVerification
import Foundation
import HTTPTypes
import LedgerDomain
import LedgerStore

/// Verified App Store data of one app → events in the log, by the one idempotent path (`EventRecorder`), whichever
/// door it came in by: Apple's notifications, the SDK's StoreKit 2 transactions, or a legacy receipt.
///
/// Uploads never link purchases to the uploader by themselves: the upload's own `identity.linked` events are
/// replaced by the restore operation, so that taking a purchase that belongs to another user follows the app's
/// transfer policy whichever way the purchase arrives (a refused transfer is a 409 `restore_refused`; the purchase
/// facts are recorded all the same). Links from Apple's signed `appAccountToken` are kept.
///
/// Each event's `occurredAt` (business time) is the signing time of the document that carried it (the
/// notification's or transaction's `signedDate`, the receipt's creation date), or the time of the request when
/// the document has none.
struct AppStoreRecording: Sendable {
    let directory: AppDirectory
    let recorder: EventRecorder
    let store: EventStore
    let products: @Sendable (String) async throws -> [ProductRecord]
    let now: @Sendable () -> Date

    struct Result: Sendable {
        var recorded: Int
        var alreadyKnown: Int
        /// Log positions of the events (new or known), for read-your-writes.
        var positions: [Int64]
    }

    func notification(app: AppRecord, signedPayload: String, metadata: EventMetadata) async throws -> (uuid: String, Result) {
        let verifiers = try await verifiers(app)
        let verified = try await Self.verify { () async throws(AppStoreVerificationError) in try await verifiers.verifyNotification(signedPayload, now: now()) }
        let ingest = NotificationIngest(appAccountTokens: app.tokenPolicy)
        let events = try Self.ingest { () throws(IngestError) in try ingest.events(for: verified) }
        let signed = verified.payload.signedDate.map(Instant.init(appStore:)) ?? instantNow()
        let outcome = try await record(app: app, events, at: signed, metadata: metadata)
        return (verified.payload.notificationUUID ?? "", outcome)
    }

    /// StoreKit 2 signed transactions (each with its renewal info, if any) uploaded for `user`.
    /// With `link`, the purchases are then linked to `user` under the app's transfer policy.
    func transactions(app: AppRecord, user: String, _ uploads: [(transaction: String, renewalInfo: String?)], link: Bool,
                      metadata: EventMetadata) async throws -> (Result, originalTransactionIDs: [String]) {
        let verifiers = try await verifiers(app)
        let ingest = TransactionIngest(appAccountTokens: app.tokenPolicy)
        var events: [LedgerEvent] = []
        var ids: [String] = []
        var latest = Instant(microsecondsSinceEpoch: 0)
        for (index, upload) in uploads.enumerated() {
            let transaction = try await Self.verify(at: "transactions[\(index)].signed_transaction") { () async throws(AppStoreVerificationError) in
                try await verifiers.verifyTransaction(upload.transaction, now: now())
            }
            let renewal: RenewalInfoPayload?
            if let signed = upload.renewalInfo {
                renewal = try await Self.verify(at: "transactions[\(index)].signed_renewal_info") { () async throws(AppStoreVerificationError) in
                    try await verifiers.verifyRenewalInfo(signed, now: now())
                }
            } else {
                renewal = nil
            }
            events += try Self.ingest { () throws(IngestError) in
                try ingest.events(transaction: transaction, renewalInfo: renewal, appUserID: user)
            }
            if let id = transaction.originalTransactionId ?? transaction.transactionId { ids.append(id) }
            if let signed = transaction.signedDate.map(Instant.init(appStore:)) { latest = max(latest, signed) }
        }
        let at = latest.microsecondsSinceEpoch > 0 ? latest : instantNow()
        var result = try await record(app: app, events, at: at, metadata: metadata)
        if link { result.add(linked: try await self.link(app: app, ids, to: user, metadata: metadata)) }
        return (result, ids)
    }

    /// A legacy app receipt (DER / BER bytes) uploaded for `user`. Product types come from the app's catalog.
    func receipt(app: AppRecord, user: String, der: [UInt8], link: Bool, metadata: EventMetadata) async throws -> (Result, originalTransactionIDs: [String]) {
        let verifiers = try await verifiers(app)
        let receipt = try await Self.verify { () async throws(AppStoreVerificationError) in try await verifiers.verifyReceipt(der: der, now: now()) }
        let catalog = Dictionary(try await products(app.id).map { ($0.productID, $0.type) }, uniquingKeysWith: { a, _ in a })
        let ingest = ReceiptIngest(productType: { catalog[$0] })
        let events = try Self.ingest { () throws(IngestError) in try ingest.events(receipt: receipt, appUserID: user) }
        let ids = Array(Set(receipt.inAppPurchases.compactMap { $0.originalTransactionId ?? $0.transactionId })).sorted()
        let at = receipt.receiptCreationDateMs.map(Instant.init(epochMilliseconds:)) ?? instantNow()
        var result = try await record(app: app, events, at: at, metadata: metadata)
        if link { result.add(linked: try await self.link(app: app, ids, to: user, metadata: metadata)) }
        return (result, ids)
    }

    /// Links original transactions to `user` under the app's transfer policy; returns the positions appended.
    func link(app: AppRecord, _ ids: [String], to user: String, metadata: EventMetadata) async throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        do {
            return try await RestoreOperation(store: store).restore(
                app: app.id, originalTransactionIDs: ids, to: user, policy: app.transferPolicy, at: instantNow(),
                metadata: metadata)
        } catch let refusal as RestoreRefusal {
            throw APIError(.conflict, "restore_refused", refusal.message, details: ["conflicts": .array(refusal.conflicts.map {
                .object(["original_transaction_id": .string($0.originalTransactionID), "owner_user_id": .string($0.ownerUserID)])
            })])
        }
    }

    private func record(app: AppRecord, _ events: [LedgerEvent], at instant: Instant, metadata: EventMetadata) async throws -> Result {
        let appends = StreamNaming.appends(for: events.filter { !$0.isUploadLink })
        let outcome = try await recorder.record(app: app.id, appends, occurredAt: { _ in instant }, metadata: metadata)
        return Result(recorded: outcome.recorded, alreadyKnown: outcome.alreadyKnown, positions: outcome.positions)
    }

    private func verifiers(_ app: AppRecord) async throws -> AppStoreVerifierSet {
        guard let verifiers = try await directory.verifiers(for: app.id) else { throw APIError.notFound("there is no app \(app.id)") }
        return verifiers
    }

    private func instantNow() -> Instant {
        Instant(microsecondsSinceEpoch: Int64((now().timeIntervalSince1970 * 1_000_000).rounded(.down)))
    }

    /// Verification failures are the client's: 400 with the verifier's stable code.
    static func verify<T>(at path: String? = nil, _ body: () async throws(AppStoreVerificationError) -> T) async throws(APIError) -> T {
        do {
            return try await body()
        } catch {
            throw APIError(.badRequest, error.code.rawValue, path.map { "\($0): \(error.message)" } ?? error.message)
        }
    }

    /// Verified data the ledger cannot key (a missing id) is refused, never recorded under a made-up key.
    static func ingest<T>(_ body: () throws(IngestError) -> T) throws(APIError) -> T {
        do {
            return try body()
        } catch {
            throw APIError(.badRequest, "unrecordable", error.description)
        }
    }
}

extension AppStoreRecording.Result {
    mutating func add(linked positions: [Int64]) {
        recorded += positions.count
        self.positions += positions
    }
}

extension LedgerEvent {
    /// A link an upload makes to its uploader (replaced by the policy-checked restore, see `AppStoreRecording`).
    var isUploadLink: Bool {
        if case .linked(let link) = self { return link.source == .upload }
        return false
    }
}
