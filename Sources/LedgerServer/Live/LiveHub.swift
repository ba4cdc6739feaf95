import ExactJSON
import Foundation
import LedgerConcurrency
import LedgerDomain
import LedgerPrivacy
import LedgerStore
import LedgerTenancy
import LedgerWire
import Logging
import Metrics
import PostgresClient
import Synchronization
import UTCTime

/// One message of a live stream.
package enum LiveMessage: Sendable, Equatable {
    /// `snapshot` on connect, `change` after: the user's whole state (JSON) as of `cursor`.
    case state(type: String, cursor: String, json: String)
    case heartbeat
}

/// An open stream: its messages, and a way to end it (the server's graceful shutdown).
package struct LiveSubscription: Sendable {
    package let messages: AsyncStream<LiveMessage>
    let continuation: AsyncStream<LiveMessage>.Continuation

    package func end() { continuation.finish() }
}

/// The live streams of this instance: it follows the log itself (any instance serves any client), behind the
/// per-user read models, and pushes each connected user's new state when an event changed it.
///
/// Every round (woken by this process's projection worker, or every `pollInterval` for workers elsewhere) it reads
/// the projections' frontier, the purchases of the connected users' apps that changed since the last round, reads
/// the state of the users they concern (holders then and owners now) and of new streams, and sends each stream the
/// state if it differs from the one it was sent last. All reads and sends run in this one loop, so a stream's
/// messages are in order. A stream whose buffer is full (a slow client) is closed; the client reconnects and gets a
/// fresh snapshot.
package final class LiveHub: Sendable {
    package struct Settings: Sendable {
        package var pollInterval: Duration = .milliseconds(250)
        package var heartbeat: Duration = .seconds(15)
        /// Streams one API key may hold open on one instance (a public key is shared by every install of the app).
        package var streamsPerKey = 10_000
        /// Messages a stream may have waiting before it is closed as too slow.
        package var buffer = 32

        package init() {}
    }

    let users: UserQueries
    let live: LiveQueries
    /// The registry and the read models name users by pseudonym; each stream's messages name its user by the app's id.
    let identities: IdentityStore
    let catalog: @Sendable (String) async throws -> [ProductRecord]
    let clock: LedgerClock
    let settings: Settings
    let logger: Logger
    private let signal = WakeSignal()
    private let state: Mutex<State>

    private struct State {
        var registry: LiveRegistry
        var continuations: [Int: AsyncStream<LiveMessage>.Continuation] = [:]
        var cursor: LogCheckpoint?
        /// The app's id of each user (by pseudonym) with a stream open: what their messages name.
        var appUserIDs: [LiveRegistry.User: String] = [:]
    }

    package init(
        pool: PostgresPool, identities: IdentityStore, catalog: @escaping @Sendable (String) async throws -> [ProductRecord],
        clock: LedgerClock, settings: Settings = Settings(), logger: Logger = Logger(label: "ledger.live")
    ) {
        self.users = UserQueries(pool: pool)
        self.identities = identities
        self.live = LiveQueries(pool: pool)
        self.catalog = catalog
        self.clock = clock
        self.settings = settings
        self.logger = logger
        self.state = Mutex(State(registry: LiveRegistry(limitPerKey: settings.streamsPerKey)))
    }

    /// Streams open on this instance.
    package var streams: Int { state.withLock { $0.registry.count } }

    /// New events may have been applied: look now rather than at the next poll.
    package func wake() { signal.fire() }

    /// Throws if the key has no room for another stream (checked before a WebSocket upgrade, to answer 429).
    package func checkRoom(key: String) throws(LiveRegistry.Refusal) {
        try state.withLock { state throws(LiveRegistry.Refusal) in try state.registry.checkRoom(key: key) }
    }

    /// The pseudonym `open` takes for the app user `user` (made if the ledger never heard of the user: their first
    /// purchase then reaches the stream).
    package func pseudonym(app: String, user: String) async throws -> String {
        if try await identities.erasure(app: app, user: user) != nil { throw APIError.userErased }
        return try await identities.pseudonym(app: app, user: user)
    }

    /// Opens a stream for `user` (named in the log by `pseudonym`) of `app` with the API key `key`; the first message is
    /// the user's snapshot.
    package func open(app: String, user: String, pseudonym: String, key: String) throws(LiveRegistry.Refusal) -> LiveSubscription {
        let (stream, continuation) = AsyncStream<LiveMessage>.makeStream(bufferingPolicy: .bufferingOldest(settings.buffer))
        let id = try state.withLock { state throws(LiveRegistry.Refusal) -> Int in
            let registered = LiveRegistry.User(app: app, id: pseudonym)
            let id = try state.registry.open(user: registered, key: key)
            state.appUserIDs[registered] = user
            state.continuations[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.close(id) }
        Gauge(label: "ledger_live_streams").record(state.withLock { $0.registry.count })
        signal.fire()
        return LiveSubscription(messages: stream, continuation: continuation)
    }

    /// Ends every stream of the user `pseudonym` of `app` on this instance (they were erased: nothing may hold their
    /// id any more); returns how many.
    @discardableResult
    package func end(app: String, pseudonym: String) -> Int {
        let continuations = state.withLock { state in
            let user = LiveRegistry.User(app: app, id: pseudonym)
            state.appUserIDs[user] = nil
            return state.registry.streams(of: user).compactMap { state.continuations[$0] }
        }
        for continuation in continuations { continuation.finish() }
        return continuations.count
    }

    private func close(_ id: Int) {
        let count = state.withLock { state in
            state.registry.close(id)
            state.continuations[id] = nil
            return state.registry.count
        }
        Gauge(label: "ledger_live_streams").record(count)
    }

    /// Runs until cancelled; then ends every stream.
    package func run() async {
        var lastHeartbeat = ContinuousClock.now
        while !Task.isCancelled {
            await signal.wait(timeout: settings.pollInterval)
            do {
                try await round()
            } catch {
                logger.warning("live streams could not read the ledger; retrying", metadata: ["error": "\(error)"])
            }
            if ContinuousClock.now - lastHeartbeat >= settings.heartbeat {
                lastHeartbeat = .now
                for id in state.withLock({ $0.registry.ids }) { send(.heartbeat, to: id) }
            }
        }
        let continuations = state.withLock { state in
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    private func round() async throws {
        let (users, waiting, cursor, appUserIDs) = state.withLock { state in
            let users = state.registry.users
            state.appUserIDs = state.appUserIDs.filter { users[$0.key.app]?.contains($0.key.id) == true }
            return (users, state.registry.waitingForSnapshot, state.cursor, state.appUserIDs)
        }
        guard !users.isEmpty else {
            // Nobody listens: the next stream starts from the frontier of its time.
            state.withLock { $0.cursor = nil }
            return
        }
        // Before the projections have run once, nothing is applied: the log's start.
        let frontier = try await live.frontier() ?? .start
        var concerned = waiting
        if let cursor, cursor < frontier {
            let changed = try await live.changes(after: cursor, through: frontier, apps: users.keys.sorted())
            // A user's own stream (grants) concerns that user, when someone listens.
            for (app, id) in changed.users where users[app]?.contains(id) == true { concerned.insert(LiveRegistry.User(app: app, id: id)) }
            for (app, keys) in Dictionary(grouping: changed.purchases, by: \.app).mapValues({ Set($0.map(\.key)) }) {
                concerned.formUnion(state.withLock { $0.registry.holders(app: app, of: keys) })
                let owners = try await live.owners(app: app, of: keys.sorted(), among: users[app] ?? [])
                concerned.formUnion(owners.map { LiveRegistry.User(app: app, id: $0) })
            }
        }
        state.withLock { $0.cursor = frontier }
        let text = Self.cursor(frontier)
        for (app, ids) in Dictionary(grouping: concerned, by: \.app).mapValues({ $0.map(\.id).sorted() }).sorted(by: { $0.key < $1.key }) {
            let products = try await catalog(app)
            // The users' states in one statement per slice, not one per user: a round after a burst concerns many.
            for start in stride(from: 0, to: ids.count, by: Self.usersPerRead) {
                let slice = ids[start..<min(start + Self.usersPerRead, ids.count)]
                let owned = try await self.users.summaries(app: app, owners: Set(slice)).byOwner
                for id in slice {
                    let user = LiveRegistry.User(app: app, id: id)
                    guard let appUserID = appUserIDs[user] else { continue }  // its streams closed meanwhile
                    let (json, held) = try Self.state(
                        of: appUserID, pseudonym: id, owned: owned[id] ?? OwnedSummaries(), catalog: products, at: clock.now())
                    let sends = state.withLock { $0.registry.read(user, state: json, purchases: held) }
                    for (id, snapshot) in sends {
                        send(.state(type: snapshot ? "snapshot" : "change", cursor: text, json: json), to: id)
                    }
                }
            }
        }
    }

    /// Users whose states one statement reads.
    static let usersPerRead = 500

    /// The user's state as the API shows it, and the purchases it was read from.
    private static func state(
        of user: String, pseudonym: String, owned: OwnedSummaries, catalog products: [ProductRecord], at now: Instant
    ) throws -> (String, Set<String>) {
        let snapshot = UserSnapshot(appUserID: pseudonym, owned: owned, catalog: products.catalog, at: now)
        let body = LiveState(
            appUserID: user, entitlements: EntitlementBody.list(snapshot.entitlements),
            productsStatus: ProductStatusBody.list(snapshot.productsStatus, catalog: products))
        let held = Set(owned.subscriptions.map(\.originalTransactionID) + owned.purchases.map(\.originalTransactionID))
        return (String(decoding: try SortedKeysEncoder().encode(body), as: UTF8.self), held)
    }

    private func send(_ message: LiveMessage, to id: Int) {
        guard let continuation = state.withLock({ $0.continuations[id] }) else { return }
        if case .dropped = continuation.yield(message) {
            logger.info("closing a live stream whose client does not keep up")
            continuation.finish()
        }
    }

    /// A cursor: where in the log a state was read (the projections' frontier), `<transaction id>-<position>`.
    package static func cursor(_ checkpoint: LogCheckpoint) -> String { "\(checkpoint.transactionID)-\(checkpoint.position)" }

    package static func checkpoint(cursor: String) -> LogCheckpoint? {
        let parts = cursor.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let transaction = UInt64(parts[0]), let position = Int64(parts[1]), position >= 0 else { return nil }
        return LogCheckpoint(transactionID: transaction, position: position)
    }
}

/// What a live message carries: the user's entitlements and products status, as `GET /v1/users/{id}` shows them.
struct LiveState: Encodable {
    var appUserID: String
    var entitlements: [EntitlementBody]
    var productsStatus: [ProductStatusBody]

    enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case entitlements
        case productsStatus = "products_status"
    }
}
