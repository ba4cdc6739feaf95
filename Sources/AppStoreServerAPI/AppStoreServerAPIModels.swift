/// The App Store Server API's request and response bodies, with Apple's field names. Signed items stay the compact
/// JWS Apple sent: callers verify them offline (`AppStoreVerifierSet`), as they verify notifications.

/// Get Transaction History (v2): one page of a customer's transactions, ordered by revision.
public struct TransactionHistoryPage: Sendable, Equatable, Decodable {
    /// The token of the next page (`revision=` of the next call).
    public var revision: String?
    public var hasMore: Bool
    public var bundleId: String?
    public var appAppleId: Int64?
    public var environment: String?
    public var signedTransactions: [String]

    public init(revision: String?, hasMore: Bool, bundleId: String? = nil, appAppleId: Int64? = nil, environment: String? = nil,
                signedTransactions: [String]) {
        self.revision = revision
        self.hasMore = hasMore
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
        self.signedTransactions = signedTransactions
    }

    enum CodingKeys: String, CodingKey { case revision, hasMore, bundleId, appAppleId, environment, signedTransactions }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        revision = try c.decodeIfPresent(String.self, forKey: .revision)
        hasMore = try c.decodeIfPresent(Bool.self, forKey: .hasMore) ?? false
        bundleId = try c.decodeIfPresent(String.self, forKey: .bundleId)
        appAppleId = try c.decodeIfPresent(Int64.self, forKey: .appAppleId)
        environment = try c.decodeIfPresent(String.self, forKey: .environment)
        signedTransactions = try c.decodeIfPresent([String].self, forKey: .signedTransactions) ?? []
    }
}

/// Get All Subscription Statuses: per subscription group, the latest transaction and renewal info of each subscription.
public struct SubscriptionStatuses: Sendable, Equatable, Decodable {
    public struct Group: Sendable, Equatable, Decodable {
        public var subscriptionGroupIdentifier: String?
        public var lastTransactions: [LastTransaction]
    }

    public struct LastTransaction: Sendable, Equatable, Decodable {
        /// 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
        public var status: Int?
        public var originalTransactionId: String?
        public var signedTransactionInfo: String?
        public var signedRenewalInfo: String?
    }

    public var environment: String?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var data: [Group]
}

/// Get Notification History's request body. Dates are Apple's epoch milliseconds; `startDate` at most 180 days ago.
public struct NotificationHistoryQuery: Sendable, Equatable, Encodable {
    public var startDate: Int64
    public var endDate: Int64
    public var notificationType: String?
    public var notificationSubtype: String?
    public var transactionId: String?
    public var onlyFailures: Bool?

    public init(startDate: Int64, endDate: Int64, notificationType: String? = nil, notificationSubtype: String? = nil,
                transactionId: String? = nil, onlyFailures: Bool? = nil) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }
}

/// One attempt of Apple to deliver a notification.
public struct NotificationSendAttempt: Sendable, Equatable, Decodable {
    public var attemptDate: Int64?
    /// `SUCCESS`, `TIMED_OUT`, `NO_RESPONSE`, …
    public var sendAttemptResult: String?
}

/// Get Notification History: one page of the notifications Apple sent.
public struct NotificationHistoryPage: Sendable, Equatable, Decodable {
    public struct Item: Sendable, Equatable, Decodable {
        public var signedPayload: String
        public var sendAttempts: [NotificationSendAttempt]?
    }

    public var notificationHistory: [Item]
    public var hasMore: Bool
    public var paginationToken: String?

    enum CodingKeys: String, CodingKey { case notificationHistory, hasMore, paginationToken }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        notificationHistory = try c.decodeIfPresent([Item].self, forKey: .notificationHistory) ?? []
        hasMore = try c.decodeIfPresent(Bool.self, forKey: .hasMore) ?? false
        paginationToken = try c.decodeIfPresent(String.self, forKey: .paginationToken)
    }
}

/// Request a Test Notification's answer.
public struct TestNotificationRequested: Sendable, Equatable, Decodable {
    public var testNotificationToken: String
}

/// Get Test Notification Status's answer.
public struct TestNotificationStatus: Sendable, Equatable, Decodable {
    public var signedPayload: String?
    public var sendAttempts: [NotificationSendAttempt]?
}

/// Look Up Order ID's answer: `status` 0 valid, 1 invalid.
public struct OrderLookup: Sendable, Equatable, Decodable {
    public var status: Int
    public var signedTransactions: [String]?
}

/// Get Refund History (v2): one page of refunded transactions.
public struct RefundHistoryPage: Sendable, Equatable, Decodable {
    public var signedTransactions: [String]
    public var revision: String?
    public var hasMore: Bool
}

/// Send Consumption Information's body: Apple's `ConsumptionRequest` of `PUT /inApps/v2/transactions/consumption/{transactionId}`,
/// its field names and string values (the V1 body with numeric codes is for Advanced Commerce only). Absent optionals
/// are left out of the JSON.
public struct ConsumptionInformation: Sendable, Equatable, Codable {
    /// Must be true: without the customer's consent no answer is sent.
    public var customerConsented: Bool
    /// The share consumed in milliunits, 0…100000 (50% is 50000).
    public var consumptionPercentage: Int?
    /// `DELIVERED`, `UNDELIVERED_QUALITY_ISSUE`, `UNDELIVERED_WRONG_ITEM`, `UNDELIVERED_SERVER_OUTAGE` or `UNDELIVERED_OTHER`.
    public var deliveryStatus: String
    /// `DECLINE`, `GRANT_FULL` or `GRANT_PRORATED`.
    public var refundPreference: String?
    public var sampleContentProvided: Bool

    public init(customerConsented: Bool, consumptionPercentage: Int? = nil, deliveryStatus: String, refundPreference: String? = nil,
                sampleContentProvided: Bool) {
        self.customerConsented = customerConsented
        self.consumptionPercentage = consumptionPercentage
        self.deliveryStatus = deliveryStatus
        self.refundPreference = refundPreference
        self.sampleContentProvided = sampleContentProvided
    }
}

/// Apple's error body.
struct AppleErrorBody: Decodable {
    var errorCode: Int?
    var errorMessage: String?
}
