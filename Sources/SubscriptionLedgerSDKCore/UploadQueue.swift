import Foundation

/// When to send a failed upload again: exponential backoff, capped, with optional jitter.
public struct RetryPolicy: Sendable, Equatable {
    /// The wait after the first failure.
    public var initialDelay: Duration
    /// The longest wait.
    public var maximumDelay: Duration
    /// Each failure multiplies the wait by this.
    public var multiplier: Double
    /// The fraction of the wait that is randomised (0: none), so many devices back online at once do not retry in step.
    public var jitter: Double

    public init(initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(300), multiplier: Double = 2, jitter: Double = 0.2) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// The wait after `failures` consecutive failures (1: the first), `random` in 0..<1 choosing the jitter.
    public func delay(afterFailures failures: Int, random: Double = Double.random(in: 0..<1)) -> Duration {
        guard failures > 0 else { return .zero }
        let base = Self.seconds(initialDelay) * pow(multiplier, Double(min(failures - 1, 62)))
        let capped = min(base, Self.seconds(maximumDelay))
        let jittered = capped * (1 - jitter * random)
        return .milliseconds(Int64((jittered * 1000).rounded()))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// An upload the ledger has not acknowledged yet, kept on disk until it has.
public struct PendingUpload: Sendable, Equatable, Codable, Identifiable {
    public enum Payload: Sendable, Equatable, Codable {
        /// A StoreKit 1 app receipt (`POST /uploadReceipt`).
        case receipt(Data)
        /// StoreKit 2 signed transactions (`POST /v1/users/{id}/transactions`; `POST /uploadTransactions`, which
        /// identifies the user and sets the cookie, while the SDK holds no cookie for the user).
        case transactions([String])
    }

    public var id: UUID
    /// nil: a receipt (or signed transactions) for a new anonymous user.
    public var userID: String?
    public var payload: Payload
    public var enqueuedAt: Date
    /// Failed attempts so far.
    public var failures: Int
    /// Not to be sent before this.
    public var notBefore: Date
    /// The store transaction ids to finish once the ledger has recorded this upload.
    public var transactionIDs: [String]

    public init(id: UUID = UUID(), userID: String?, payload: Payload, enqueuedAt: Date = Date(), transactionIDs: [String] = []) {
        self.id = id
        self.userID = userID
        self.payload = payload
        self.enqueuedAt = enqueuedAt
        failures = 0
        notBefore = enqueuedAt
        self.transactionIDs = transactionIDs
    }
}

/// The upload queue's state and rules, without I/O: what to send next, and what a send's outcome does to the queue.
/// Uploads leave the queue only when the ledger recorded them (or refused them for good); the ledger is idempotent,
/// so sending one again after a lost answer records nothing twice.
public struct UploadQueueState: Sendable, Equatable {
    public private(set) var pending: [PendingUpload]
    public let policy: RetryPolicy

    public init(pending: [PendingUpload] = [], policy: RetryPolicy) {
        self.pending = pending
        self.policy = policy
    }

    /// What a send attempt came to.
    public enum Outcome: Sendable, Equatable {
        /// Recorded (2xx): drop it.
        case delivered
        /// Network lost or the server unavailable (transport error, 5xx, 429): keep it, back off.
        case retryLater
        /// Refused for good (4xx): drop it; sending it again would be refused again.
        case refused
    }

    public mutating func enqueue(_ upload: PendingUpload) {
        pending.append(upload)
    }

    /// The oldest upload due at `now`. Uploads are sent in order, so a later one never overtakes an earlier one.
    public func next(at now: Date) -> PendingUpload? {
        guard let first = pending.first, first.notBefore <= now else { return nil }
        return first
    }

    /// When the next upload is due (nil: the queue is empty).
    public var nextDue: Date? { pending.first?.notBefore }

    public mutating func record(_ outcome: Outcome, for id: UUID, at now: Date, random: Double = Double.random(in: 0..<1)) {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return }
        switch outcome {
        case .delivered, .refused:
            pending.remove(at: index)
        case .retryLater:
            pending[index].failures += 1
            let delay = policy.delay(afterFailures: pending[index].failures, random: random)
            pending[index].notBefore = now.addingTimeInterval(RetryPolicy.seconds(delay))
        }
    }

    /// Every upload due now (e.g. the network came back): clears the backoff without counting a failure.
    public mutating func makeAllDue(at now: Date) {
        for index in pending.indices { pending[index].notBefore = min(pending[index].notBefore, now) }
    }

    /// The outcome of a send that failed with `error`.
    public static func outcome(of error: LedgerError) -> Outcome {
        error.isRetryable ? .retryLater : .refused
    }
}
