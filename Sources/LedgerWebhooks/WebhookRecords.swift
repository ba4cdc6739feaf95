import LedgerDomain
import UTCTime

/// A backend's webhook endpoint (`ledger.webhook_endpoints`).
public struct WebhookEndpoint: Sendable, Equatable {
    public enum Status: String, Sendable {
        case enabled
        case disabled
    }

    public var appID: String
    public var endpointID: String
    public var url: String
    public var description: String?
    /// Ledger event types sent; empty: all.
    public var eventTypes: [String]
    /// `production`, `sandbox` or both.
    public var environments: [String]
    public var secret: String
    public var previousSecret: String?
    public var previousSecretExpiresAt: Instant?
    public var status: Status
    public var disabledReason: String?
    public var failingSince: Instant?
    public var createdAt: Instant
    public var updatedAt: Instant

    public init(
        appID: String, endpointID: String, url: String, description: String?, eventTypes: [String], environments: [String],
        secret: String, previousSecret: String?, previousSecretExpiresAt: Instant?, status: Status, disabledReason: String?,
        failingSince: Instant?, createdAt: Instant, updatedAt: Instant
    ) {
        self.appID = appID
        self.endpointID = endpointID
        self.url = url
        self.description = description
        self.eventTypes = eventTypes
        self.environments = environments
        self.secret = secret
        self.previousSecret = previousSecret
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.status = status
        self.disabledReason = disabledReason
        self.failingSince = failingSince
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The secrets that sign a delivery sent at `now`: the current one, and the previous one during a rotation.
    public func signingSecrets(at now: Instant) -> [String] {
        guard let previousSecret, let until = previousSecretExpiresAt, now < until else { return [secret] }
        return [secret, previousSecret]
    }

    /// Whether an event of `type` in `environment` (nil: unknown, sent to every endpoint) goes to this endpoint.
    public func accepts(type: String, environment: String?) -> Bool {
        (eventTypes.isEmpty || eventTypes.contains(type)) && (environment.map(environments.contains) ?? true)
    }
}

/// One message to one endpoint (`ledger.webhook_deliveries`).
public struct WebhookDelivery: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable {
        case pending
        case succeeded
        /// Every attempt of the retry window failed; kept, and sent again by a redelivery.
        case givenUp = "given_up"
    }

    public var appID: String
    public var endpointID: String
    public var deliveryID: String
    public var position: Int64
    public var eventType: String
    public var appUserID: String?
    public var orderKey: String
    public var sequence: Int64
    public var previousSequence: Int64?
    public var payload: String
    public var status: Status
    public var attempts: Int
    public var nextAttemptAt: Instant
    public var createdAt: Instant
    public var firstAttemptAt: Instant?
    public var finishedAt: Instant?
    /// The sampled trace of the request that recorded the event (`EventMetadata.traceparent`); nil: not traced.
    public var traceparent: String? = nil
}

/// One try of a delivery (`ledger.webhook_attempts`).
public struct WebhookAttempt: Sendable, Equatable {
    public var attempt: Int
    public var attemptedAt: Instant
    /// nil: no HTTP answer (refused, timed out, blocked address).
    public var statusCode: Int?
    public var latencyMilliseconds: Int
    public var error: String?

    public init(attempt: Int, attemptedAt: Instant, statusCode: Int?, latencyMilliseconds: Int, error: String?) {
        self.attempt = attempt
        self.attemptedAt = attemptedAt
        self.statusCode = statusCode
        self.latencyMilliseconds = latencyMilliseconds
        self.error = error
    }

    /// A 2xx answer: the receiver has it.
    public var succeeded: Bool { statusCode.map { (200..<300).contains($0) } ?? false }
}

/// What becomes of a delivery after an attempt (`WebhookStore.record`).
public enum WebhookOutcome: Sendable, Equatable {
    case succeeded
    /// Try again at this instant.
    case retry(at: Instant)
    case givenUp
}
