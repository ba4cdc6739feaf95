import UTCTime

/// Apple asks for consumption information to decide a refund (`CONSUMPTION_REQUEST`). Recorded so the
/// developer's answer can be traced; it changes no projection state.
public struct ConsumptionRequest: Sendable, Hashable, Codable {
    public var subscription: SubscriptionRef
    public var transactionID: String
    public init(subscription: SubscriptionRef, transactionID: String) {
        self.subscription = subscription
        self.transactionID = transactionID
    }
}

/// The ledger answered Apple's `CONSUMPTION_REQUEST` about `transactionID` with Send Consumption Information: what it
/// sent, what it decided that from, and what Apple answered, so the answer can be traced and is sent once. It changes
/// no projection state.
///
/// Schema version 2. Version 1 (the retired V1 endpoint's body, sent before consent and refund policies existed) is
/// upcast losslessly: its body stays in `v1Body`, and `answer`, `inputs` and Apple's status are nil.
public struct ConsumptionInformationSent: Sendable, Hashable, Codable {
    public var originalTransactionID: String
    /// The transaction the request was about (the key: one answer per request).
    public var transactionID: String
    public var productID: String
    public var environment: StoreEnvironment
    /// When Apple signed the request that this answers.
    public var requestSignedDate: Instant
    public var sentAt: Instant
    /// The body sent to `PUT /inApps/v2/transactions/consumption/{transactionId}`; nil for a version-1 answer.
    public var answer: ConsumptionAnswer?
    /// What `answer` was decided from; nil for a version-1 answer.
    public var inputs: ConsumptionInputs?
    /// Apple's HTTP status (202: accepted; a 4xx: refused for good, with `appleErrorCode`); nil for a version-1 answer.
    public var appleStatus: Int?
    public var appleErrorCode: Int?
    /// The retired V1 body of an answer recorded with schema version 1.
    public var v1Body: ConsumptionInformationV1Body?

    public init(
        originalTransactionID: String, transactionID: String, productID: String, environment: StoreEnvironment,
        requestSignedDate: Instant, sentAt: Instant, answer: ConsumptionAnswer?, inputs: ConsumptionInputs?,
        appleStatus: Int?, appleErrorCode: Int? = nil, v1Body: ConsumptionInformationV1Body? = nil
    ) {
        self.originalTransactionID = originalTransactionID
        self.transactionID = transactionID
        self.productID = productID
        self.environment = environment
        self.requestSignedDate = requestSignedDate
        self.sentAt = sentAt
        self.answer = answer
        self.inputs = inputs
        self.appleStatus = appleStatus
        self.appleErrorCode = appleErrorCode
        self.v1Body = v1Body
    }
}

/// What a version-1 `transaction.consumption_information_sent` recorded of the V1 body (Apple's numeric codes).
public struct ConsumptionInformationV1Body: Sendable, Hashable, Codable {
    public var consumptionStatus: Int
    public var deliveryStatus: Int
    public var platform: Int
    public var customerConsented: Bool

    public init(consumptionStatus: Int, deliveryStatus: Int, platform: Int, customerConsented: Bool) {
        self.consumptionStatus = consumptionStatus
        self.deliveryStatus = deliveryStatus
        self.platform = platform
        self.customerConsented = customerConsented
    }
}

/// The ledger decided not to answer Apple's `CONSUMPTION_REQUEST` about `transactionID` (yet): nothing was sent, and
/// this says why and from what. Recorded once per request and reason; a later pass within Apple's 12 hours answers
/// if the reason went away (the user consented meanwhile). It changes no projection state.
public struct ConsumptionAnswerWithheld: Sendable, Hashable, Codable {
    public var originalTransactionID: String
    public var transactionID: String
    public var productID: String
    public var environment: StoreEnvironment
    public var requestSignedDate: Instant
    public var decidedAt: Instant
    public var reason: ConsumptionWithholdReason
    public var inputs: ConsumptionInputs

    public init(
        originalTransactionID: String, transactionID: String, productID: String, environment: StoreEnvironment,
        requestSignedDate: Instant, decidedAt: Instant, reason: ConsumptionWithholdReason, inputs: ConsumptionInputs
    ) {
        self.originalTransactionID = originalTransactionID
        self.transactionID = transactionID
        self.productID = productID
        self.environment = environment
        self.requestSignedDate = requestSignedDate
        self.decidedAt = decidedAt
        self.reason = reason
        self.inputs = inputs
    }
}

/// Who recorded a consent: the app (public key, through the SDK) or the developer's backend (secret key).
public enum ConsentSource: String, Sendable, Hashable, Codable, CaseIterable {
    case app
    case backend
}

/// The user said whether the ledger may send Apple data about their consumption when Apple asks about a refund they
/// requested (Apple's `customerConsented`). The user's latest consent holds: `consented: false` withdraws an earlier
/// one. Recorded in the user's own stream (`LedgerStreams.user`); it changes no projection state.
public struct ConsumptionConsent: Sendable, Hashable, Codable {
    public var appUserID: String
    public var consented: Bool
    public var source: ConsentSource
    public var recordedAt: Instant

    public init(appUserID: String, consented: Bool, source: ConsentSource, recordedAt: Instant) {
        self.appUserID = appUserID
        self.consented = consented
        self.source = source
        self.recordedAt = recordedAt
    }
}

/// The developer delivered a consumable and marked it consumed (the seed's "consume" API). Produced only by
/// `ConsumptionRules.consume`, which checks ownership and state first.
public struct Consumption: Sendable, Hashable, Codable {
    public var appUserID: String
    public var productID: String
    public var transactionID: String
    public var originalTransactionID: String
    public var consumedAt: Instant
    public init(
        appUserID: String, productID: String, transactionID: String, originalTransactionID: String,
        consumedAt: Instant
    ) {
        self.appUserID = appUserID
        self.productID = productID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.consumedAt = consumedAt
    }
}
