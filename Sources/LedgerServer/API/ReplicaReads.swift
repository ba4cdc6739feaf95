import HTTPTypes
import Hummingbird
import LedgerDomain
import LedgerPrivacy
import LedgerStore
import PostgresClient

/// Where a status read goes: the primary, or, with `LEDGER_READ_DATABASE_URL`, a streaming replica of it.
///
/// Read-your-writes across the two: with a replica, every successful write answers with `Ledger-Read-After`, the
/// primary's WAL position once the write (and, within the read-your-writes wait, the projection batch that included
/// it) had committed. A read that sends it back reads the replica once the replica has replayed that position,
/// waiting at most `wait`, and reads the primary after that. A read without it reads the replica as it is (behind by
/// the replication delay). A replica that cannot be reached sends the read to the primary. Every read answers
/// `Ledger-Read-From: primary | replica`.
struct ReplicaReads: Sendable {
    static let tokenHeader = HTTPField.Name("Ledger-Read-After")!
    static let sourceHeader = HTTPField.Name("Ledger-Read-From")!

    struct Replica: Sendable {
        let pool: PostgresPool
        let users: UserQueries
    }

    let primary: UserQueries
    let replica: Replica?
    /// How long a read with a token waits for the replica to replay it.
    let wait: Duration
    /// How a read finds the pseudonym the read models name the request's user by.
    let identities: IdentityStore

    init(primary: PostgresPool, replica: PostgresPool?, wait: Duration, identities: IdentityStore) {
        self.identities = identities
        self.primary = UserQueries(pool: primary, batchingStatusReads: true)
        self.replica = replica.map { Replica(pool: $0, users: UserQueries(pool: $0, batchingStatusReads: true)) }
        self.wait = wait
    }

    enum Source: String { case primary, replica }

    /// Runs `read` where the request's token allows, the replica first; the answer and where it was read.
    func read<T: Sendable>(_ request: Request, _ read: (UserQueries) async throws -> T) async throws -> (T, Source) {
        let token = try Self.token(request)
        guard let replica else { return (try await read(primary), .primary) }
        do {
            if let token, try await !Self.replayed(token, on: replica.pool, within: wait) {
                return (try await read(primary), .primary)
            }
            return (try await read(replica.users), .replica)
        } catch let error as PostgresError where error.isConnectionProblem {
            return (try await read(primary), .primary)
        }
    }

    /// What the app user `user` owns: one statement, which finds the user's pseudonym by the blind index of their id,
    /// with developer payloads opened (a second statement only when one is sealed under a key this process has not
    /// read in the last minute). An erased user is a 404 `user_erased` (asked only when the statement found nothing).
    func owned(_ request: Request, app: String, user: String) async throws -> (OwnedSummaries, Source) {
        let index = try await identities.blindIndex(app: app, user: user)
        let (owned, source) = try await read(request) { try await $0.summaries(app: app, userIndex: index) }
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

    /// Throws 404 `user_erased` when `user` was erased (docs/erasure.md, "After erasure").
    func refuseErased(app: String, user: String) async throws {
        if try await identities.erasure(app: app, user: user) != nil { throw APIError.userErased }
    }

    /// The token a write answers with: the primary's current WAL position (nil without a replica).
    static func token(after pool: PostgresPool) async throws -> String? {
        try await ReplicaPosition.current(on: pool)
    }

    /// The request's `Ledger-Read-After`, checked: a WAL position as PostgreSQL writes it (`16/B374D848`).
    static func token(_ request: Request) throws(APIError) -> String? {
        guard let value = request.headers[tokenHeader] else { return nil }
        let parts = value.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy(\.isHexDigit) }) else {
            throw .badRequest("Ledger-Read-After must be the WAL position a write answered with (such as 16/B374D848); send it back unchanged")
        }
        return value
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

/// With a read replica, adds `Ledger-Read-After` to every successful write (any method but GET and HEAD), so that
/// the caller's next read can ask for a replica that has replayed it (`ReplicaReads`).
struct ReadTokenMiddleware: RouterMiddleware {
    typealias Context = LedgerRequestContext
    let primary: PostgresPool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        guard request.method != .get, request.method != .head, (200..<300).contains(response.status.code) else { return response }
        // A write that succeeded is not failed for want of its token: without it, the next read may lag.
        if let token = try? await ReplicaReads.token(after: primary) { response.headers[ReplicaReads.tokenHeader] = token }
        return response
    }
}
