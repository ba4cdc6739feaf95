import Foundation

/// The SDK's state and work behind `PurchaseManager`: the user and their cookies, the last known status (cached on
/// disk), the durable upload queue and its sender, the live stream, and the store's transaction updates.
///
/// Only the queue's sender sends uploads, one at a time and in order, so an upload is never in flight twice.
actor LedgerEngine {
    nonisolated let configuration: LedgerConfiguration
    nonisolated let client: LedgerClient
    nonisolated let files: LedgerFiles
    let store: any PurchaseStore

    private(set) var userID: String?
    private var cookies: [String: UIDCookie]
    private(set) var status: LedgerStatus?
    private var queue: UploadQueueState
    private var statusListeners: [UUID: AsyncStream<LedgerStatus>.Continuation] = [:]
    private var uploadListeners: [UUID: AsyncStream<UploadEvent>.Continuation] = [:]
    /// Callers of `upload` waiting for their upload's first attempt.
    private var waiters: [UUID: CheckedContinuation<UploadAttempt, any Error>] = [:]
    /// Store transactions to finish once the ledger recorded them, by transaction id.
    private var finishers: [String: @Sendable () async -> Void] = [:]
    private var sender: Task<Void, Never>?
    private var live: Task<Void, Never>?
    private var updates: Task<Void, Never>?

    init(configuration: LedgerConfiguration, store: any PurchaseStore) {
        self.configuration = configuration
        self.store = store
        client = LedgerClient(baseURL: configuration.baseURL, apiKey: configuration.apiKey, requestTimeout: configuration.requestTimeout)
        files = LedgerFiles(configuration: configuration)
        cookies = files.cookies.read() ?? [:]
        queue = UploadQueueState(pending: files.queue.read() ?? [], policy: configuration.retry)
    }

    func log(_ message: String) {
        configuration.log?(message)
    }

    // MARK: configure

    /// Starts the SDK for `userID` (nil: an anonymous user the ledger names): publishes the cached status at once
    /// (offline start), uploads the receipt and the current entitlements, reads the status, then keeps it current.
    func configure(userID requested: String?) async throws -> LedgerStatus {
        stopBackgroundWork()
        let known = requested ?? cookies.values.first { $0.userID.hasPrefix("anon-") }?.userID
        userID = known
        if let known, let cached = files.status.read(), cached.userID == known {
            var cached = cached
            cached.isCached = true
            publish(cached)
        } else {
            status = nil
        }
        var refusal: (any Error)?
        if let receipt = await store.appReceipt() {
            do { _ = try await upload(.receipt(receipt), for: known) } catch { refusal = error }
        }
        // The current entitlements are uploaded once: before the guard when they are what identifies the user (no
        // receipt, or one that got no cookie: a StoreKit 2 app; the sender then uses POST /uploadTransactions), else
        // after it.
        let current = await store.currentEntitlements()
        let identifying = userID.flatMap { cookie(for: $0) } == nil && !current.isEmpty
        if identifying {
            for transaction in current { finishers[transaction.id] = transaction.finish }
            do {
                _ = try await upload(.transactions(current.map(\.jwsRepresentation)), for: userID, transactionIDs: current.map(\.id))
                refusal = nil
            } catch {
                refusal = error
            }
        }
        guard let user = userID, cookie(for: user) != nil else {
            startSender()
            if let status, status.isCached { return status }
            // A refusal (e.g. the transfer policy keeps the purchases with another user) says more than "no cookie".
            if let refusal = refusal as? LedgerError { throw refusal }
            throw LedgerError.notConfigured
        }
        if !identifying, !current.isEmpty {
            for transaction in current { finishers[transaction.id] = transaction.finish }
            _ = try? await upload(.transactions(current.map(\.jwsRepresentation)), for: user, transactionIDs: current.map(\.id))
        }
        startSender()
        startUpdatesListener()
        let result: LedgerStatus
        do {
            result = try await refreshStatus()
        } catch let error as LedgerError where error.isRetryable {
            startLive(for: user)
            if let status { return status }
            throw error
        }
        startLive(for: user)
        return result
    }

    func stopBackgroundWork() {
        live?.cancel()
        updates?.cancel()
        live = nil
        updates = nil
    }

    func shutdown() {
        stopBackgroundWork()
        sender?.cancel()
        sender = nil
        for continuation in statusListeners.values { continuation.finish() }
        for continuation in uploadListeners.values { continuation.finish() }
        statusListeners = [:]
        uploadListeners = [:]
    }

    func requireUser() throws -> (String, UIDCookie?) {
        guard let userID else { throw LedgerError.notConfigured }
        return (userID, cookie(for: userID))
    }

    func cookie(for user: String) -> UIDCookie? {
        guard let cookie = cookies[user], cookie.isUsable(for: user) else { return nil }
        return cookie
    }

    /// An upload's cookie: its user's usable one; a receipt falls back to any kept for its user (the answer renews it).
    private func cookie(forUpload upload: PendingUpload) -> UIDCookie? {
        let usable = upload.userID.flatMap { cookie(for: $0) }
        guard usable == nil, case .receipt = upload.payload else { return usable }
        return cookies.values.first { $0.userID == upload.userID }
    }

    private func keep(_ cookie: UIDCookie) {
        cookies[cookie.userID] = cookie
        // Expired cookies are dropped so the file does not grow with every user ever seen on the device.
        cookies = cookies.filter { $0.value.expires.map { $0 > Date() } ?? false }
        do {
            try files.cookies.write(cookies)
        } catch {
            log("could not keep the uid cookie: \(error)")
        }
    }

    // MARK: status

    /// Reads the user's state from the ledger and publishes it.
    @discardableResult
    func refreshStatus() async throws -> LedgerStatus {
        let (user, cookie) = try requireUser()
        let state = try await client.userState(user, cookie: cookie)
        let fresh = LedgerStatus(
            userID: state.appUserID, products: state.productsStatus, entitlements: state.entitlements,
            cursor: status?.cursor)
        publish(fresh)
        return fresh
    }

    /// The seed's `GET /productsStatus`, merged into the status.
    func productsStatus() async throws -> [ProductStatus] {
        try await productsStatusPublishing().products
    }

    /// `productsStatus()`, and whether the answer went to the status listeners (it did not when it changed nothing).
    func productsStatusPublishing() async throws -> (products: [ProductStatus], published: Bool) {
        let (user, cookie) = try requireUser()
        guard let cookie else { throw LedgerError.notConfigured }
        let products = try await client.productsStatus(cookie: cookie)
        var next = status ?? LedgerStatus(userID: user, products: [], entitlements: [])
        next.products = products
        next.receivedAt = Date()
        next.isCached = false
        return (products, publish(next))
    }

    func userState() async throws -> UserState {
        let (user, cookie) = try requireUser()
        return try await client.userState(user, cookie: cookie)
    }

    func unconsumed() async throws -> [UnconsumedPurchase] {
        let (user, cookie) = try requireUser()
        return try await client.unconsumed(user, cookie: cookie)
    }

    func consume(transactionID: String) async throws -> ConsumeResult {
        let (user, cookie) = try requireUser()
        let result = try await client.consume(user, transactionID: transactionID, cookie: cookie)
        _ = try? await refreshStatus()
        return result
    }

    func recordConsumptionConsent(_ consented: Bool) async throws -> ConsumptionConsentResult {
        let (user, cookie) = try requireUser()
        return try await client.recordConsumptionConsent(user, consented: consented, cookie: cookie)
    }

    func restore() async throws -> RestoreResult {
        let (user, cookie) = try requireUser()
        try await store.sync()
        let signed = await store.allTransactions().map(\.jwsRepresentation)
        let receipt = await store.appReceipt()
        guard !signed.isEmpty || receipt != nil else { throw LedgerError.store("the store has no purchases to restore") }
        let result = try await client.restore(user, signedTransactions: signed, receipt: receipt, cookie: cookie)
        _ = try? await refreshStatus()
        return result
    }

    /// Caches a status and hands it to the listeners when it differs from the last one: other facts, or the cached
    /// state confirmed by the ledger. A re-read or the live stream's snapshot that says the same is not delivered again.
    /// Returns whether the listeners got it.
    @discardableResult
    func publish(_ next: LedgerStatus) -> Bool {
        guard next.userID == userID || userID == nil else { return false }  // a late answer for a previous user
        let changed = status.map { !$0.sameFacts(as: next) || $0.isCached != next.isCached } ?? true
        var next = next
        if next.cursor == nil { next.cursor = status?.cursor }
        status = next
        if !next.isCached {
            do {
                try files.status.write(next)
            } catch {
                log("could not cache the status: \(error)")
            }
        }
        guard changed else { return false }
        for continuation in statusListeners.values { continuation.yield(next) }
        return true
    }

    func statusUpdates() -> AsyncStream<LedgerStatus> {
        let (stream, continuation) = AsyncStream<LedgerStatus>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        statusListeners[id] = continuation
        continuation.onTermination = { _ in Task { await self.removeStatusListener(id) } }
        return stream
    }

    private func removeStatusListener(_ id: UUID) {
        statusListeners[id] = nil
    }

    func uploadEvents() -> AsyncStream<UploadEvent> {
        let (stream, continuation) = AsyncStream<UploadEvent>.makeStream()
        let id = UUID()
        uploadListeners[id] = continuation
        continuation.onTermination = { _ in Task { await self.removeUploadListener(id) } }
        return stream
    }

    private func removeUploadListener(_ id: UUID) {
        uploadListeners[id] = nil
    }

    private func emit(_ event: UploadEvent) {
        for continuation in uploadListeners.values { continuation.yield(event) }
    }

    // MARK: live updates

    func startLive(for user: String) {
        live?.cancel()
        let policy = LiveConnectionPolicy(pollInterval: configuration.pollInterval)
        let updater = LiveUpdater(
            client: client, userID: user, cookie: { [weak self] in await self?.cookie(for: user) },
            onState: { [weak self] state in await self?.publish(state) },
            poll: { [weak self] in _ = try? await self?.refreshStatus() },
            log: { [log = configuration.log] in log?($0) }, policy: policy)
        let cursor = status?.cursor
        if configuration.liveUpdates {
            live = Task { await updater.run(from: cursor) }
        } else {
            let interval = configuration.pollInterval
            live = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    _ = try? await self?.refreshStatus()
                }
            }
        }
    }

    // MARK: store transactions

    private func startUpdatesListener() {
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
        _ = try? await upload(.transactions([transaction.jwsRepresentation]), for: userID, transactionIDs: [transaction.id])
    }

    func purchase(productID: String) async throws -> PurchaseResult {
        let (user, _) = try requireUser()
        // With the `token_is_app_user_id` policy the ledger links the purchase to the user its appAccountToken names,
        // which works only for user ids that are UUIDs.
        switch try await store.purchase(productID: productID, appAccountToken: UUID(uuidString: user)) {
        case .userCancelled: return .cancelled
        case .pending: return .pending
        case .purchased(let transaction):
            finishers[transaction.id] = transaction.finish
            switch try await upload(.transactions([transaction.jwsRepresentation]), for: user, transactionIDs: [transaction.id]) {
            case .delivered: return .purchased(transactionID: transaction.id, status: try? await refreshStatus())
            case .queued: return .queued(transactionID: transaction.id)
            }
        }
    }

    // MARK: the upload queue

    /// How an upload's first attempt went.
    enum UploadAttempt: Sendable {
        case delivered(recorded: Int, alreadyKnown: Int)
        /// Not delivered yet: it stays queued and is retried.
        case queued
    }

    /// Queues an upload durably and waits for its first attempt: delivered, or queued for retry; a refusal throws.
    func upload(_ payload: PendingUpload.Payload, for user: String?, transactionIDs: [String] = []) async throws -> UploadAttempt {
        let upload = PendingUpload(userID: user, payload: payload, transactionIDs: transactionIDs)
        queue.enqueue(upload)
        persistQueue()
        emit(.enqueued(upload))
        return try await withCheckedThrowingContinuation { continuation in
            waiters[upload.id] = continuation
            startSender()
        }
    }

    /// The uploads not delivered yet.
    var pendingUploads: [PendingUpload] { queue.pending }

    /// Sends every queued upload now (e.g. the app learnt the network is back), without waiting for the backoff.
    func retryUploadsNow() {
        queue.makeAllDue(at: Date())
        persistQueue()
        sender?.cancel()
        sender = nil
        startSender()
    }

    private func persistQueue() {
        do {
            try files.queue.write(queue.pending)
        } catch {
            log("could not write the upload queue: \(error)")
        }
    }

    func startSender() {
        guard sender == nil, !queue.pending.isEmpty else { return }
        sender = Task { await self.sendQueued() }
    }

    private func sendQueued() async {
        defer { sender = nil }
        while !Task.isCancelled {
            guard let due = queue.nextDue else { return }
            guard let upload = queue.next(at: Date()) else {
                try? await Task.sleep(for: .milliseconds(max(1, Int64(due.timeIntervalSinceNow * 1000))))
                continue
            }
            await send(upload)
        }
    }

    private func send(_ upload: PendingUpload) async {
        do {
            let delivery = try await client.deliver(upload, cookie: cookie(forUpload: upload))
            if let issued = delivery.issued {
                keep(issued)
                if userID == nil || userID == upload.userID { userID = delivery.userID }
            }
            queue.record(.delivered, for: upload.id, at: Date())
            persistQueue()
            log("upload \(upload.id) delivered: \(delivery.recorded) recorded, \(delivery.alreadyKnown) already known")
            emit(.delivered(upload, recorded: delivery.recorded, alreadyKnown: delivery.alreadyKnown))
            // Finished in the store before the purchase is reported done: recorded first, then finished.
            for id in upload.transactionIDs {
                await finishers.removeValue(forKey: id)?()
            }
            waiters.removeValue(forKey: upload.id)?.resume(returning: .delivered(recorded: delivery.recorded, alreadyKnown: delivery.alreadyKnown))
        } catch {
            let error = error as? LedgerError ?? .transport("\(error)")
            // A missing or expired cookie is renewed by the next configure, so such an upload waits rather than
            // being dropped.
            let outcome: UploadQueueState.Outcome =
                switch error {
                case .server(let refusal) where refusal.status == 401 || refusal.status == 403: .retryLater
                default: UploadQueueState.outcome(of: error)
                }
            queue.record(outcome, for: upload.id, at: Date())
            persistQueue()
            switch outcome {
            case .retryLater:
                let retryAt = queue.pending.first { $0.id == upload.id }?.notBefore ?? Date()
                log("upload \(upload.id) failed (\(error)); retrying at \(retryAt)")
                emit(.willRetry(upload, error, retryAt: retryAt))
                waiters.removeValue(forKey: upload.id)?.resume(returning: .queued)
            case .refused, .delivered:
                log("upload \(upload.id) refused: \(error)")
                emit(.refused(upload, error))
                waiters.removeValue(forKey: upload.id)?.resume(throwing: error)
            }
        }
    }
}
