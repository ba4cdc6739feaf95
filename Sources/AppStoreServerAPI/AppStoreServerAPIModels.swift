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

/// Send Consumption Information's body (Apple's `ConsumptionRequest` of that endpoint; 0 means "undeclared" in every
/// enumerated field). `customerConsented` must be true: without consent the request is not to be sent.
public struct ConsumptionInformation: Sendable, Equatable, Codable {
    public var customerConsented: Bool
    /// 0 undeclared, 1 not consumed, 2 partially consumed, 3 fully consumed.
    public var consumptionStatus: Int
    /// 0 undeclared, 1 Apple, 2 non-Apple.
    public var platform: Int
    public var sampleContentProvided: Bool
    /// 0 delivered and working, 1–5 the ways it was not.
    public var deliveryStatus: Int
    /// The UUID the app set on the purchase, or the empty string.
    public var appAccountToken: String
    public var accountTenure: Int
    public var playTime: Int
    public var lifetimeDollarsRefunded: Int
    public var lifetimeDollarsPurchased: Int
    public var userStatus: Int
    /// 0 undeclared, 1 prefer grant, 2 prefer decline, 3 no preference.
    public var refundPreference: Int

    public init(customerConsented: Bool, consumptionStatus: Int = 0, platform: Int = 0, sampleContentProvided: Bool = false,
                deliveryStatus: Int = 0, appAccountToken: String = "", accountTenure: Int = 0, playTime: Int = 0,
                lifetimeDollarsRefunded: Int = 0, lifetimeDollarsPurchased: Int = 0, userStatus: Int = 0, refundPreference: Int = 0) {
        self.customerConsented = customerConsented
        self.consumptionStatus = consumptionStatus
        self.platform = platform
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
        self.appAccountToken = appAccountToken
        self.accountTenure = accountTenure
        self.playTime = playTime
        self.lifetimeDollarsRefunded = lifetimeDollarsRefunded
        self.lifetimeDollarsPurchased = lifetimeDollarsPurchased
        self.userStatus = userStatus
        self.refundPreference = refundPreference
    }
}

/// Apple's error body.
struct AppleErrorBody: Decodable {
    var errorCode: Int?
    var errorMessage: String?
}
