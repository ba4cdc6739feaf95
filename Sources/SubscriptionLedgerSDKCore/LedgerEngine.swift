import Foundation

/// The SDK's state behind `PurchaseManager`, one actor so that a user switch, an answer and an upload never
/// interleave: who the SDK works for (`CookieJar`), what it knows of them (`CustomerCache`), the durable upload
/// queue and its sender (`LedgerEngine+Uploads.swift`), the live stream (`LiveUpdater`) and the store's purchases
/// (`LedgerEngine+Purchases.swift`).
actor LedgerEngine {
    nonisolated let configuration: LedgerConfiguration
    nonisolated let client: LedgerClient
    nonisolated let files: LedgerFiles
    let store: any PurchaseStore

    private(set) var userID: String?
    var jar: CookieJar
    var cache: CustomerCache
    var queue: UploadQueueState
    var uploadListeners: [UUID: AsyncStream<UploadEvent>.Continuation] = [:]
    /// Callers of `upload` waiting for their upload's first attempt.
    var waiters: [UUID: CheckedContinuation<UploadAttempt, any Error>] = [:]
    /// Store transactions to finish once the ledger recorded them, by transaction id.
    var finishers: [String: @Sendable () async -> Void] = [:]
    var sender: Task<Void, Never>?
    private var live: Task<Void, Never>?
    /// The anonymous user `logOut` named, until something identifies them to the ledger.
    private var signedOut = false
    var updates: Task<Void, Never>?

    init(configuration: LedgerConfiguration, store: any PurchaseStore) {
        self.configuration = configuration
        self.store = store
        client = LedgerClient(baseURL: configuration.baseURL, apiKey: configuration.apiKey, requestTimeout: configuration.requestTimeout)
        files = LedgerFiles(configuration: configuration)
        jar = CookieJar(files: files)
        cache = CustomerCache(files: files, maximumAge: configuration.offlineEntitlementsMaximumAge)
        queue = UploadQueueState(pending: files.queue.read() ?? [], policy: configuration.retry)
    }

    func log(_ message: String) {
        configuration.log?(message)
    }

    var now: Date { configuration.now() }

    // MARK: who the SDK works for

    /// Starts the SDK for `requested` (nil: the user of the last launch, else a new anonymous user):
    /// answers offline at once from the kept snapshot, pins the ledger's status keys, uploads the receipt and the
    /// store's current entitlements (which identify the user to the ledger and get their cookie), reads the
    /// customer, then keeps them current.
    func configure(userID requested: String?) async throws -> CustomerInfo {
        stopBackgroundWork()
        let last = requested == nil ? jar.lastUser : nil
        // A new anonymous user is named on the device (as the ledger would), so every upload and answer names them.
        let user = requested ?? last?.userID ?? "anon-" + UUID().uuidString.lowercased()
        switchUser(to: user, signedOut: last?.signedOut == true)
        await pinKeysIfNeeded()
        if signedOut {
            // Logged out: nothing of the device is uploaded for this user until they buy or restore.
            return cache.info ?? publishEmpty(for: user)
        }
        var refusal: (any Error)?
        if let receipt = await store.appReceipt() {
            do { _ = try await upload(.receipt(receipt), for: user) } catch { refusal = error }
        }
        // The current entitlements are uploaded once: before the guard when they are what identifies the user (no
        // receipt, or one that got no cookie: a StoreKit 2 app; the sender then uses POST /uploadTransactions), else
        // after it.
        let current = await store.currentEntitlements()
        let identifying = jar.cookie(for: user) == nil && !current.isEmpty
        if identifying {
            for transaction in current { finishers[transaction.id] = transaction.finish }
            do {
                _ = try await upload(.transactions(current.map(\.jwsRepresentation)), for: user, transactionIDs: current.map(\.id))
                refusal = nil
            } catch {
                refusal = error
            }
        }
        guard jar.cookie(for: user) != nil else {
            startSender()
            // A refusal (e.g. the transfer policy keeps the purchases with another user) says more than "no cookie".
            if let refusal = refusal as? LedgerError { throw refusal }
            if let info = cache.info { return info }
            // Nothing on this device identified the user to the ledger yet (no receipt, no purchase, or no network):
            // nothing to read, and nothing they are entitled to; their first purchase identifies them.
            return publishEmpty(for: user)
        }
        if !identifying, !current.isEmpty {
            for transaction in current { finishers[transaction.id] = transaction.finish }
            _ = try? await upload(.transactions(current.map(\.jwsRepresentation)), for: user, transactionIDs: current.map(\.id))
        }
        startSender()
        startUpdatesListener()
        // Started already when this configure's upload identified the user (`identified`): kept, not restarted.
        defer { if live == nil { startLive(for: user) } }
        return try await customerInfo()
    }

    /// Switches to `user` (`PurchaseManager.logIn`): the receipt and the store's purchases are uploaded for them, and
    /// the ledger moves the purchases of this device's previous user to them as the app's transfer policy says. When
    /// the policy refuses, nothing changes: the SDK goes on for the previous user and the refusal is thrown
    /// (`LedgerError.restoreRefused`). Uploads queued for the previous user are delivered for them first (the queue
    /// keeps its order), so the transfer includes them.
    func logIn(userID user: String) async throws -> CustomerInfo {
        let previous = userID
        if previous == user, let info = cache.info { return info }
        do {
            return try await configure(userID: user)
        } catch let error as LedgerError where !error.isRetryable {
            log("log in as another user refused (\(error)); staying with the previous user")
            if let previous { _ = try? await configure(userID: previous) } else { switchUser(to: nil) }
            throw error
        }
    }

    /// Ends the user's session on this device (`PurchaseManager.logOut`): their snapshot is forgotten (in memory and
    /// on disk), the live stream stops, and the SDK works for a new anonymous user, named on the device, whom the
    /// ledger learns of at their first purchase. Their purchases stay theirs: nothing is uploaded for the new user
    /// until they buy or restore. Uploads queued for the previous user are still delivered for them.
    func logOut() throws -> CustomerInfo {
        stopBackgroundWork()
        cache.forgetKept()
        let anonymous = "anon-" + UUID().uuidString.lowercased()
        // The store's transactions (renewals, unfinished ones) are the Apple account's, not this new user's: they are
        // not listened to until the new user buys or restores.
        switchUser(to: anonymous, signedOut: true)
        return publishEmpty(for: anonymous)
    }

    /// Makes `user` the current user: remembered for the next launch, the snapshot of another user forgotten, and
    /// the kept one published at once when it holds (an offline start).
    private func switchUser(to user: String?, signedOut: Bool = false) {
        if user != userID { cache.reset() }
        userID = user
        self.signedOut = signedOut
        do { try jar.remember(current: user, signedOut: signedOut) } catch { log("could not remember the user: \(error)") }
        guard let user, cache.info == nil else { return }
        let (info, refusal) = cache.offline(for: user, at: now)
        if let info {
            cache.publish(info)
        } else if let refusal {
            log("kept snapshot refused: \(refusal)")
        }
    }

    /// The user an upload's answer named: the one the ledger made for an upload without a user (anonymous).
    func adopt(_ user: String?) {
        guard let user, user != userID else { return }
        switchUser(to: user)
    }

    /// The ledger issued the current user's cookie (their first upload from this device): what `configure` could
    /// not start without it starts now (the live stream, the store's transactions).
    func identified(_ user: String) {
        if signedOut {
            signedOut = false
            do { try jar.remember(current: user) } catch { log("could not remember the user: \(error)") }
        }
        if live == nil { startLive(for: user) }
        if updates == nil { startUpdatesListener() }
    }

    private func publishEmpty(for user: String) -> CustomerInfo {
        let empty = CustomerInfo(userID: user, isKnown: false, issuedAt: now, source: .ledger)
        cache.publish(empty)
        return empty
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
        cache.finish()
        for continuation in uploadListeners.values { continuation.finish() }
        uploadListeners = [:]
    }

    func requireUser() throws -> (String, UIDCookie?) {
        guard let userID else { throw LedgerError.notConfigured }
        return (userID, jar.cookie(for: userID))
    }

    // MARK: what the SDK knows of them

    /// The customer as the ledger answers now (`readAfter`: a write's token, so the answer includes it); with the
    /// ledger unreachable, the kept signed snapshot judged at the device's clock; else the error.
    @discardableResult
    func customerInfo(readAfter: String? = nil) async throws -> CustomerInfo {
        let (user, cookie) = try requireUser()
        guard cookie != nil else {
            // Not identified to the ledger from this device (or the cookie expired: the next configure renews it).
            if let info = cache.offline(for: user, at: now).info ?? cache.info { return info }
            return publishEmpty(for: user)
        }
        let answer: LedgerClient.StatusAnswer<Wire.UserState>
        do {
            answer = try await client.userState(user, cookie: cookie, readAfter: readAfter)
        } catch let error as LedgerError where error.isRetryable {
            let (info, refusal) = cache.offline(for: user, at: now)
            guard let info else {
                if let refusal { log("kept snapshot refused: \(refusal)") }
                throw error
            }
            guard userID == user else { throw LedgerError.notConfigured }
            cache.publish(info)
            return info
        }
        // The ledger's own instant when it signed the answer (the device's clock may be off).
        let issuedAt = answer.snapshot?.header.map { Date(timeIntervalSince1970: TimeInterval($0.iat)) } ?? now
        let info = try CustomerInfo(answer.body, issuedAt: issuedAt, source: .ledger)
        guard userID == user else { return info }  // a late answer for a previous user
        if let snapshot = answer.snapshot { await keep(snapshot, for: user) }
        cache.publish(info)
        return info
    }

    /// Keeps a signed answer for offline use; a key the SDK has not pinned yet (a rotation) fetches the set again.
    private func keep(_ snapshot: SignedSnapshot, for user: String) async {
        var refusal = cache.keep(snapshot, for: user, at: now)
        if case .unknownKey = refusal, let fetched = try? await client.statusKeys() {
            do { try cache.pin(fetched) } catch { log("could not pin the status keys: \(error)") }
            refusal = cache.keep(snapshot, for: user, at: now)
        }
        if let refusal { log("status answer not kept for offline use: \(refusal)") }
    }

    private func pinKeysIfNeeded() async {
        guard cache.keys == nil, let fetched = try? await client.statusKeys() else { return }
        do { try cache.pin(fetched) } catch { log("could not pin the status keys: \(error)") }
    }

    func customerInfoUpdates() -> AsyncStream<CustomerInfo> {
        cache.listen { [weak self] id in Task { await self?.stopListening(id) } }
    }

    private func stopListening(_ id: UUID) {
        cache.stopListening(id)
    }

    func unconsumed() async throws -> [UnconsumedPurchase] {
        let (user, cookie) = try requireUser()
        return try await client.unconsumed(user, cookie: cookie).map { u throws(LedgerError) in try UnconsumedPurchase(u) }
    }

    // MARK: live updates

    func startLive(for user: String) {
        live?.cancel()
        let updater = LiveUpdater(
            client: client, userID: user, cookie: { [weak self] in await self?.jar.cookie(for: user) },
            onState: { [weak self] state, cursor in await self?.received(state, cursor: cursor, for: user) },
            poll: { [weak self] in _ = try? await self?.customerInfo() },
            log: { [log = configuration.log] in log?($0) }, policy: LiveConnectionPolicy(pollInterval: configuration.pollInterval))
        let cursor = cache.cursor
        if configuration.liveUpdates {
            live = Task { await updater.run(from: cursor) }
        } else {
            let interval = configuration.pollInterval
            live = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    _ = try? await self?.customerInfo()
                }
            }
        }
    }

    /// The live stream's state: when it says something the last snapshot does not, the whole snapshot is read again
    /// (signed, with subscriptions and purchases); if that read fails, the stream's facts are published as they are.
    func received(_ state: Wire.LiveState, cursor: String?, for user: String) async {
        guard userID == user else { return }
        cache.cursor = cursor ?? cache.cursor
        guard let entitlements = try? state.entitlements.map({ e throws(LedgerError) in try EntitlementInfo(e) }),
            let products = try? state.productsStatus.map({ p throws(LedgerError) in try ProductStatus(p) })
        else { return log("live stream: undecodable state") }
        if let info = cache.info, info.source == .ledger, info.entitlements == entitlements, info.productsStatus == products { return }
        if (try? await customerInfo()) != nil { return }
        var merged = cache.info ?? CustomerInfo(userID: user)
        (merged.entitlements, merged.productsStatus, merged.issuedAt, merged.source) = (entitlements, products, now, .ledger)
        cache.publish(merged)
    }
}
