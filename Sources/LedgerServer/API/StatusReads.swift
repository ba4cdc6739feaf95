import HTTPTypes
import Hummingbird
import LedgerDomain
import LedgerPrivacy
import LedgerStore
import PostgresClient

/// Where a status read goes (`GET /v1/users/{id}`, `/productsStatus`): the status cache (`StatusCache`), the primary,
/// or, with `LEDGER_READ_DATABASE_URL`, a streaming replica of it.
///
/// Read-your-writes across them: every successful write answers with `Ledger-Read-After` (`ReadToken`). A read that
/// sends it back is answered by the cache once the cache has followed the log past the write; by the replica once
/// the replica has replayed the primary's WAL position after the write, waiting at most `wait`; by the primary after
/// that, once the primary's projections include the write. A write answers when its projections include it or when
/// its own wait gives up (`ReadYourWrites`); in that second case its reads may find the projections still behind it,
/// and a read that finds them behind when `wait` is over is refused with 503 `read_after_pending` and `Retry-After`
/// rather than answered with a state older than the caller's own write. Such a write's token carries no WAL
/// position, so its reads go to the primary.
/// A read without a token may be answered by the cache (a state at most the cache's `staleness` old) or reads the
/// replica as it is (behind by the replication delay). A replica that cannot be reached sends the read to the primary.
/// Every read answers `Ledger-Read-From: cache | primary | replica`.
struct StatusReads: Sendable {
    static let sourceHeader = HTTPField.Name("Ledger-Read-From")!

    struct Replica: Sendable {
        let pool: PostgresPool
        let users: UserQueries
    }

    let primary: UserQueries
    let replica: Replica?
    /// How long a read with a token waits for the cache to follow it and the projections to apply it (the two together),
    /// and for the replica to replay it.
    let wait: Duration
    /// How a read finds the pseudonym the read models name the request's user by.
    let identities: IdentityStore
    /// The status reads' cache (nil: off).
    let cache: StatusCache?
    /// Whether the primary's projections include a token's write.
    let visibility: ProjectionVisibility

    init(
        primary: PostgresPool, replica: PostgresPool?, wait: Duration, identities: IdentityStore, cache: StatusCache?,
        visibility: ProjectionVisibility
    ) {
        self.identities = identities
        self.visibility = visibility
        self.primary = UserQueries(pool: primary, batchingStatusReads: true)
        self.replica = replica.map { Replica(pool: $0, users: UserQueries(pool: $0, batchingStatusReads: true)) }
        self.wait = wait
        self.cache = cache
    }

    enum Source: String { case cache, primary, replica }

    /// Runs `read` where the request's token allows, the replica first; the answer and where it was read.
    func read<T: Sendable>(_ request: Request, _ read: (UserQueries) async throws -> T) async throws -> (T, Source) {
        try await self.read(token: try ReadToken.parse(request), read)
    }

    private func read<T: Sendable>(token: ReadToken?, _ read: (UserQueries) async throws -> T) async throws -> (T, Source) {
        guard let replica else { return (try await read(primary), .primary) }
        // A write answered before its projections gave no WAL position (`ReadTokenMiddleware`): the replica cannot say.
        if let token, token.checkpoint != nil, token.walPosition == nil { return (try await read(primary), .primary) }
        do {
            if let wal = token?.walPosition, try await !Self.replayed(wal, on: replica.pool, within: wait) {
                return (try await read(primary), .primary)
            }
            return (try await read(replica.users), .replica)
        } catch let error as PostgresError where error.isConnectionProblem {
            return (try await read(primary), .primary)
        }
    }

    /// What the app user `user` owns: from the cache, or one statement, which finds the user's pseudonym by the
    /// blind index of their id, with developer payloads opened (a second statement only when one is sealed under a
    /// key this process has not read in the last minute). An erased user is a 404 `user_erased` (asked only when
    /// the statement found nothing).
    func owned(_ request: Request, app: String, user: String) async throws -> (OwnedSummaries, Source) {
        let token = try ReadToken.parse(request)
        let deadline = ContinuousClock.now + wait
        let index = try await identities.blindIndex(app: app, user: user)
        let (owned, source): (OwnedSummaries, Source)
        if let cache, cache.isEnabled {
            // The cache keeps only what the primary answered: a replica's state may be older than the cache's frontier.
            var from = Source.primary
            let (found, cached) = try await cache.summaries(app: app, userIndex: index, token: token?.checkpoint, wait: wait) {
                try await projectionsInclude(token, by: deadline)
                let (found, source) = try await read(token: token) { try await $0.summaries(app: app, userIndex: index) }
                from = source
                return (found, source == .primary)
            }
            (owned, source) = (found, cached ? .cache : from)
        } else {
            try await projectionsInclude(token, by: deadline)
            (owned, source) = try await read(token: token) { try await $0.summaries(app: app, userIndex: index) }
        }
        if !owned.isKnown { try await refuseErased(app: app, user: user) }
        return (try await identities.fields.opening(app: app, owned), source)
    }

    /// The user's timeline after `after` (empty for a user the ledger never heard of; 404 `user_erased` for one erased).
    func timeline(_ request: Request, app: String, user: String, after: Int64, limit: Int) async throws -> ([RecordedEvent], Source) {
        let pseudonym = try await identities.find(app: app, user: user)
        if pseudonym == nil { try await refuseErased(app: app, user: user) }
        return try await read(request) { users in
            guard let pseudonym else { return [] }
            return try await users.timeline(app: app, pseudonym: pseudonym, after: after, limit: limit)
        }
    }

    /// Returns once the primary's projections include the token's write (at once without a token), waiting until
    /// `deadline`; throws 503 `read_after_pending` after it. Cheap when they do: this process's projection progress
    /// answers, else one read of the checkpoints shared by every waiting request (`ProjectionVisibility`).
    func projectionsInclude(_ token: ReadToken?, by deadline: ContinuousClock.Instant) async throws {
        guard let checkpoint = token?.checkpoint else { return }
        guard try await visibility.includes(checkpoint, within: max(deadline - .now, .zero)) else { throw APIError.readAfterPending }
    }

    /// Throws 404 `user_erased` when `user` was erased (docs/erasure.md, "After erasure").
    func refuseErased(app: String, user: String) async throws {
        if try await identities.erasure(app: app, user: user) != nil { throw APIError.userErased }
    }

    /// Polls the replica until it has replayed `token`, up to `timeout`. False when it has not (or is not a replica).
    static func replayed(_ token: String, on pool: PostgresPool, within timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            if try await ReplicaPosition.isReplayed(token, on: pool) { return true }
            guard ContinuousClock.now < deadline else { return false }
            // Replay has no notification a client can wait on; a replica on a good link replays within milliseconds.
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
