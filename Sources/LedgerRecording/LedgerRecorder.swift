import AppStoreIngest
import AppStoreVerification
import Foundation
import LedgerDomain
import LedgerPrivacy
import LedgerStore
import LedgerTenancy
import UTCTime
import Metrics

/// Every write into the ledger, one method each (see `About.swift`).
///
/// Uploads never link purchases to the uploader by themselves: the upload's own `identity.linked` events are
/// replaced by the restore operation, so that taking a purchase that belongs to another user follows the app's
/// transfer policy whichever way the purchase arrives (a refused transfer throws `restoreRefused` after the purchase
/// facts are recorded). Links from Apple's signed `appAccountToken` are kept.
///
/// App user ids never reach the log: each write names the user by their pseudonym (`IdentityStore`, made the first
/// time the user is named), in the events, their idempotency keys and the user's stream name, so that erasing the
/// identity leaves nothing in the log that names the person (docs/erasure.md). Decisions that compare owners then
/// compare pseudonyms; answers that name the user take the id from the request, never from the log.
///
/// Each event's `occurredAt` (business time) is the signing time of the document that carried it (the
/// notification's or transaction's `signedDate`, the receipt's creation date), or the clock's now when the document
/// has none.
package struct LedgerRecorder: Sendable {
    let store: EventStore
    let tenancy: TenancyStore
    let clock: LedgerClock
    let verifierCache: VerifierCache
    package let identities: IdentityStore

    package init(store: EventStore, tenancy: TenancyStore, identities: IdentityStore, roots: TrustRoots, clock: LedgerClock) {
        self.store = store
        self.tenancy = tenancy
        self.identities = identities
        self.clock = clock
        self.verifierCache = VerifierCache(roots: roots)
    }

    /// An App Store Server Notification V2 (`signedPayload`) delivered to `app`'s notification URL.
    package func notification(
        app: AppRecord, signedPayload: String, metadata: EventMetadata
    ) async throws -> (notificationUUID: String, RecordResult) {
        let verifiers = verifierCache.verifiers(for: app)
        let verified = try await Self.verify { () async throws(AppStoreVerificationError) in
            try await verifiers.verifyNotification(signedPayload, now: clock.now())
        }
        let ingest = NotificationIngest(appAccountTokens: app.tokenPolicy)
        let events = try Self.ingest { () throws(IngestError) in try ingest.events(for: verified) }
        let signed = verified.payload.signedDate.map(Instant.init(appStore:)) ?? clock.now()
        let result = try await record(app: app, events, at: signed, metadata: metadata)
        return (verified.payload.notificationUUID ?? "", result)
    }

    /// StoreKit 2 signed transactions (each with its renewal info, if any) uploaded for `user`.
    /// With `link`, the purchases are then linked to `user` under the app's transfer policy.
    package func transactions(
        app: AppRecord, user: String, _ uploads: [(transaction: String, renewalInfo: String?)], link: Bool,
        metadata: EventMetadata
    ) async throws -> (RecordResult, originalTransactionIDs: [String]) {
        let verifiers = verifierCache.verifiers(for: app)
        let ingest = TransactionIngest(appAccountTokens: app.tokenPolicy)
        var events: [LedgerEvent] = []
        var ids: [String] = []
        var latest: Instant?
        for (index, upload) in uploads.enumerated() {
            let transaction = try await Self.verify(at: "transactions[\(index)].signed_transaction") { () async throws(AppStoreVerificationError) in
                try await verifiers.verifyTransaction(upload.transaction, now: clock.now())
            }
            var renewal: RenewalInfoPayload?
            if let signed = upload.renewalInfo {
                renewal = try await Self.verify(at: "transactions[\(index)].signed_renewal_info") { () async throws(AppStoreVerificationError) in
                    try await verifiers.verifyRenewalInfo(signed, now: clock.now())
                }
            }
            events += try Self.ingest { () throws(IngestError) in
                try ingest.events(transaction: transaction, renewalInfo: renewal, appUserID: user)
            }
            if let id = transaction.originalTransactionId ?? transaction.transactionId { ids.append(id) }
            if let signed = transaction.signedDate.map(Instant.init(appStore:)) { latest = max(latest ?? signed, signed) }
        }
        var result = try await record(app: app, events, at: latest ?? clock.now(), metadata: metadata)
        if link { result.add(linked: try await self.link(app: app, ids, to: user, metadata: metadata)) }
        return (result, ids)
    }

    /// Signed transactions fetched from the App Store Server API (a backfill), each with its renewal info if any:
    /// verified like every other signed item, recorded under the same keys as the notification or upload carrying the
    /// same transaction (so each is recorded once), with no uploader: only the app's `appAccountToken` policy links
    /// purchases to users, as for notifications. Returns the verified transactions too (the caller pages by them).
    package func fetchedTransactions(
        app: AppRecord, _ fetched: [(transaction: String, renewalInfo: String?)],
        metadata: EventMetadata
    ) async throws -> (RecordResult, transactions: [TransactionPayload]) {
        let verifiers = verifierCache.verifiers(for: app)
        let ingest = TransactionIngest(appAccountTokens: app.tokenPolicy)
        var events: [LedgerEvent] = []
        var verified: [TransactionPayload] = []
        var latest: Instant?
        for (index, item) in fetched.enumerated() {
            let transaction = try await Self.verify(at: "signedTransactions[\(index)]") { () async throws(AppStoreVerificationError) in
                try await verifiers.verifyTransaction(item.transaction, now: clock.now())
            }
            var renewal: RenewalInfoPayload?
            if let signed = item.renewalInfo {
                renewal = try await Self.verify(at: "signedRenewalInfo[\(index)]") { () async throws(AppStoreVerificationError) in
                    try await verifiers.verifyRenewalInfo(signed, now: clock.now())
                }
            }
            var fetchedEvents = try Self.ingest { () throws(IngestError) in try ingest.events(fetched: transaction, renewalInfo: renewal) }
            if renewal != nil, let original = transaction.originalTransactionId ?? transaction.transactionId {
                fetchedEvents = try await withoutKnownRenewalFacts(app: app, fetchedEvents, originalTransactionID: original)
            }
            events += fetchedEvents
            verified.append(transaction)
            if let signed = transaction.signedDate.map(Instant.init(appStore:)) { latest = max(latest ?? signed, signed) }
        }
        guard !events.isEmpty else { return (RecordResult(), verified) }
        return (try await record(app: app, events, at: latest ?? clock.now(), metadata: metadata), verified)
    }

    /// Signed transactions from the App Store Server API verified offline for `app`, as any other (not recorded).
    package func verifiedTransactions(app: AppRecord, _ signed: [String]) async throws(RecordingError) -> [TransactionPayload] {
        let verifiers = verifierCache.verifiers(for: app)
        var verified: [TransactionPayload] = []
        for (index, item) in signed.enumerated() {
            verified.append(
                try await Self.verify(at: "signedTransactions[\(index)]") { () async throws(AppStoreVerificationError) in
                    try await verifiers.verifyTransaction(item, now: clock.now())
                })
        }
        return verified
    }

    /// A notification's `signedPayload` verified offline for `app` (not recorded).
    package func verifiedNotification(app: AppRecord, _ signedPayload: String) async throws(RecordingError) -> VerifiedNotification {
        let verifiers = verifierCache.verifiers(for: app)
        return try await Self.verify { () async throws(AppStoreVerificationError) in
            try await verifiers.verifyNotification(signedPayload, now: clock.now())
        }
    }

    /// `events` without the renewal-info facts the purchase's stream already states. Apple signs renewal info anew at
    /// every API call, and a fact's key holds its signing time, so without this every backfill would record the same
    /// auto-renew status (billing retry, price-increase consent, next product) again; a fact that changes the state is
    /// kept.
    func withoutKnownRenewalFacts(app: AppRecord, _ events: [LedgerEvent], originalTransactionID id: String) async throws -> [LedgerEvent] {
        let stream = try await store.readStream(app: app.id, stream: LedgerStreams.purchase(originalTransactionID: id))
        let status = fold(SubscriptionStatusReducer.self, key: id, events: stream.compactMap(DomainEventDecoding.decode), asOf: nil)
        return events.filter { event in
            switch event {
            case .autoRenewChanged(let change): status.autoRenew?.value != change.enabled
            case .priceIncrease(let increase): status.priceIncrease?.value != increase.consent
            case .renewalPreferenceChanged(let change) where change.transaction == nil:
                status.nextProduct?.value != .some(change.autoRenewProductID)
            case .billingFailed(let failure):
                switch status.lifecycle?.value.state {
                case .inBillingRetry?: failure.gracePeriodExpiresAt != nil
                case .inGracePeriod?: status.lifecycle?.value.graceExpiresAt != failure.gracePeriodExpiresAt
                default: true
                }
            default: true
            }
        }
    }

    /// A legacy app receipt (DER / BER bytes) uploaded for `user`. Product types come from the app's catalog.
    package func receipt(
        app: AppRecord, user: String, der: [UInt8], link: Bool,
        metadata: EventMetadata
    ) async throws -> (RecordResult, originalTransactionIDs: [String]) {
        let verifiers = verifierCache.verifiers(for: app)
        let receipt = try await Self.verify { () async throws(AppStoreVerificationError) in
            try await verifiers.verifyReceipt(der: der, now: clock.now())
        }
        let catalog = Dictionary(try await tenancy.products(app: app.id).map { ($0.productID, $0.type) }, uniquingKeysWith: { a, _ in a })
        let ingest = ReceiptIngest(productType: { catalog[$0] })
        let events = try Self.ingest { () throws(IngestError) in try ingest.events(receipt: receipt, appUserID: user) }
        let ids = Array(Set(receipt.inAppPurchases.compactMap { $0.originalTransactionId ?? $0.transactionId })).sorted()
        let at = receipt.receiptCreationDateMs.map(Instant.init(epochMilliseconds:)) ?? clock.now()
        var result = try await record(app: app, events, at: at, metadata: metadata)
        if link { result.add(linked: try await self.link(app: app, ids, to: user, metadata: metadata)) }
        return (result, ids)
    }

    /// What a restore names: verified signed transactions and a receipt (recorded first, so the restore sees them),
    /// and original transaction ids named directly (the caller decides who may do that).
    package struct RestoreSources: Sendable {
        package var signedTransactions: [String]
        package var receiptDER: [UInt8]?
        package var originalTransactionIDs: [String]

        package init(signedTransactions: [String] = [], receiptDER: [UInt8]? = nil, originalTransactionIDs: [String] = []) {
            self.signedTransactions = signedTransactions
            self.receiptDER = receiptDER
            self.originalTransactionIDs = originalTransactionIDs
        }
    }

    /// Links the purchases `sources` name to `user` under the app's transfer policy; returns the original
    /// transaction ids restored (sorted) and the positions of the events appended.
    package func restore(
        app: AppRecord, user: String, _ sources: RestoreSources,
        metadata: EventMetadata
    ) async throws -> (originalTransactionIDs: [String], positions: [Int64]) {
        var ids = sources.originalTransactionIDs
        if !sources.signedTransactions.isEmpty {
            ids += try await transactions(
                app: app, user: user, sources.signedTransactions.map { ($0, nil) }, link: false,
                metadata: metadata
            ).originalTransactionIDs
        }
        if let der = sources.receiptDER {
            ids += try await receipt(app: app, user: user, der: der, link: false, metadata: metadata).originalTransactionIDs
        }
        guard !ids.isEmpty else { throw RecordingError.nothingToRestore }
        let restored = Array(Set(ids)).sorted()
        return (restored, try await link(app: app, restored, to: user, metadata: metadata))
    }

    /// Marks the consumable `originalTransactionID` as consumed by `user` now; returns the event's position.
    package func consume(
        app: AppRecord, originalTransactionID id: String, by user: String,
        metadata: EventMetadata
    ) async throws -> (consumedAt: Instant, position: Int64) {
        let now = clock.now()
        let user = try await pseudonym(app: app, user)
        do {
            let position = try await PurchaseOperations(store: store).consume(
                app: app.id, originalTransactionID: id, by: user, at: now, metadata: metadata)
            return (now, position)
        } catch ConsumeError.unknownPurchase(let id) {
            // The consumption rules see one-time purchases only; a known subscription is not "unknown".
            let stream = try await store.readStream(app: app.id, stream: LedgerStreams.purchase(originalTransactionID: id), limit: 1)
            throw stream.isEmpty
                ? RecordingError.notConsumed(.unknownPurchase(originalTransactionID: id))
                : RecordingError.subscriptionNotConsumable(originalTransactionID: id)
        } catch let error as ConsumeError {
            throw RecordingError.notConsumed(error)
        }
    }

    /// The answer the ledger sent to Apple's consumption request, recorded once per request's transaction.
    package func consumptionInformationSent(app: AppRecord, _ sent: ConsumptionInformationSent, metadata: EventMetadata) async throws
        -> RecordResult
    {
        try await recordConsumptionDecision(
            .consumptionInformationSent(sent), app: app, originalTransactionID: sent.originalTransactionID,
            at: sent.sentAt, metadata: metadata)
    }

    /// The ledger decided not to answer a consumption request (yet), recorded once per request and reason.
    package func consumptionAnswerWithheld(app: AppRecord, _ withheld: ConsumptionAnswerWithheld, metadata: EventMetadata) async throws
        -> RecordResult
    {
        try await recordConsumptionDecision(
            .consumptionAnswerWithheld(withheld), app: app,
            originalTransactionID: withheld.originalTransactionID, at: withheld.decidedAt, metadata: metadata)
    }

    /// A decision about a consumption request, on its purchase's stream, idempotent by the event's own key.
    private func recordConsumptionDecision(
        _ event: LedgerEvent, app: AppRecord, originalTransactionID: String, at instant: Instant,
        metadata: EventMetadata
    ) async throws -> RecordResult {
        // Decided from the log (`consumptionInputs`): it names the owner by pseudonym already.
        let outcome = try await EventRecorder(store: store).record(
            app: app.id,
            [
                (
                    stream: LedgerStreams.purchase(originalTransactionID: originalTransactionID), event: event,
                    idempotencyKey: event.idempotencyKey
                )
            ],
            occurredAt: { _ in instant }, metadata: metadata)
        return RecordResult(recorded: outcome.recorded, alreadyKnown: outcome.alreadyKnown, positions: outcome.positions)
    }

    /// What an answer to `request` is decided from, as the log holds it now: the purchase's stream (its owner, kind,
    /// consumption and the requested transaction's period) and its owner's latest consent, with the app's policy.
    /// Also the reasons the purchase's stream already records a withheld answer to this request for.
    package func consumptionInputs(app: AppRecord, request: ConsumptionRequest, sampleContentProvided: Bool) async throws
        -> (inputs: ConsumptionInputs, withheld: Set<ConsumptionWithholdReason>)
    {
        let stream = try await events(app: app, stream: LedgerStreams.purchase(originalTransactionID: request.subscription.originalTransactionID))
        let facts = ConsumptionAnswerRules.purchaseFacts(stream, transactionID: request.transactionID)
        var consent: ConsumptionConsent?
        if let user = facts.appUserID {
            consent = ConsumptionAnswerRules.latestConsent(try await events(app: app, stream: LedgerStreams.user(appUserID: user)))
        }
        let withheld = Set(
            stream.compactMap { event -> ConsumptionWithholdReason? in
                if case .consumptionAnswerWithheld(let w) = event, w.transactionID == request.transactionID { return w.reason }
                return nil
            })
        let inputs = ConsumptionInputs(
            appUserID: facts.appUserID, productType: facts.productType, consumedAt: facts.consumedAt, periodStart: facts.periodStart,
            periodEnd: facts.periodEnd, requestedAt: request.subscription.signedDate, consent: consent, refundPolicy: app.refundPolicy,
            sampleContentProvided: sampleContentProvided)
        return (inputs, withheld)
    }

    /// `user`'s consent (or its withdrawal) to answers about their consumption when Apple asks about a refund they
    /// requested; the latest recorded holds. Returns the event and its position.
    package func consumptionConsent(
        app: AppRecord, user: String, consented: Bool, source: ConsentSource,
        metadata: EventMetadata
    ) async throws -> (ConsumptionConsent, position: Int64) {
        let user = try await pseudonym(app: app, user)
        let consent = ConsumptionConsent(appUserID: user, consented: consented, source: source, recordedAt: clock.now())
        let event = LedgerEvent.consumptionConsentRecorded(consent)
        let outcome = try await EventRecorder(store: store).record(
            app: app.id, [(stream: LedgerStreams.user(appUserID: user), event: event, idempotencyKey: event.idempotencyKey)],
            occurredAt: { _ in consent.recordedAt }, metadata: metadata)
        return (consent, outcome.positions.first ?? 0)
    }

    /// The events of one stream that this version can read, in order.
    func events(app: AppRecord, stream: String) async throws -> [LedgerEvent] {
        try await store.readStream(app: app.id, stream: stream).compactMap {
            try? LedgerEvent.decode(type: $0.type, schemaVersion: $0.schemaVersion, payload: $0.payload)
        }
    }

    /// A purchase paid outside the App Store (a card payment the developer's server took), recorded once per
    /// payment id. Returns whether it was new.
    package func externalPurchase(app: AppRecord, _ purchase: ExternalPurchase, metadata: EventMetadata) async throws -> RecordResult {
        let event = try await pseudonymous(app: app, [.externalPurchase(purchase)])[0]
        let outcome = try await EventRecorder(store: store).record(
            app: app.id,
            [
                (
                    stream: LedgerStreams.purchase(originalTransactionID: purchase.paymentID), event: event,
                    idempotencyKey: event.idempotencyKey
                )
            ],
            occurredAt: { _ in purchase.purchasedAt }, metadata: metadata)
        return RecordResult(recorded: outcome.recorded, alreadyKnown: outcome.alreadyKnown, positions: outcome.positions)
    }

    /// Links original transactions to `user` under the app's transfer policy; returns the positions appended.
    func link(app: AppRecord, _ ids: [String], to user: String, metadata: EventMetadata) async throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        let user = try await pseudonym(app: app, user)
        do {
            return try await RestoreOperation(store: store).restore(
                app: app.id, originalTransactionIDs: ids, to: user, policy: app.transferPolicy, at: clock.now(), metadata: metadata)
        } catch let refusal as RestoreRefusal {
            throw RecordingError.restoreRefused(try await revealingOwners(refusal, app: app))
        }
    }

    private func record(app: AppRecord, _ events: [LedgerEvent], at instant: Instant, metadata: EventMetadata) async throws -> RecordResult {
        let appends = StreamNaming.appends(for: try await pseudonymous(app: app, events.filter { !$0.isUploadLink }))
        let outcome = try await EventRecorder(store: store).record(app: app.id, appends, occurredAt: { _ in instant }, metadata: metadata)
        return RecordResult(recorded: outcome.recorded, alreadyKnown: outcome.alreadyKnown, positions: outcome.positions)
    }

    /// Verification failures are the sender's, named by the verifier's stable code.
    package static func verify<T>(at path: String? = nil, _ body: () async throws(AppStoreVerificationError) -> T) async throws(RecordingError) -> T {
        do {
            return try await body()
        } catch {
            Counter(label: "ledger_verification_failures_total", dimensions: [("reason", error.code.rawValue)]).increment()
            throw .unverifiable(error, path: path)
        }
    }

    static func ingest<T>(_ body: () throws(IngestError) -> T) throws(RecordingError) -> T {
        do {
            return try body()
        } catch {
            throw .unrecordable(error)
        }
    }
}

extension LedgerEvent {
    /// A link an upload makes to its uploader (replaced by the policy-checked restore, see `LedgerRecorder`).
    var isUploadLink: Bool {
        if case .linked(let link) = self { return link.source == .upload }
        return false
    }
}

extension AppRecord {
    /// The ingest policy for the app's `appAccountToken` convention.
    var tokenPolicy: AppAccountTokenPolicy {
        switch appAccountTokenPolicy {
        case .ignore: .ignore
        case .tokenIsAppUserID: .tokenIsAppUserID
        }
    }
}
