/// The App Store Server API's request and response bodies, with Apple's field names. Signed items stay the compact
/// JWS Apple sent: callers verify them offline (`AppStoreVerifierSet`), as they verify notifications.

/// Get Transaction History (v2): one page of a customer's transactions, ordered by revision.
package struct TransactionHistoryPage: Sendable, Equatable, Decodable {
    /// The token of the next page (`revision=` of the next call).
    package var revision: String?
    package var hasMore: Bool
    package var bundleId: String?
    package var appAppleId: Int64?
    package var environment: String?
    package var signedTransactions: [String]

    package init(
        revision: String?, hasMore: Bool, bundleId: String? = nil, appAppleId: Int64? = nil, environment: String? = nil,
        signedTransactions: [String]
    ) {
        self.revision = revision
        self.hasMore = hasMore
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
        self.signedTransactions = signedTransactions
    }

    enum CodingKeys: String, CodingKey { case revision, hasMore, bundleId, appAppleId, environment, signedTransactions }

    package init(from decoder: any Decoder) throws {
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
package struct SubscriptionStatuses: Sendable, Equatable, Decodable {
    package struct Group: Sendable, Equatable, Decodable {
        package var subscriptionGroupIdentifier: String?
        package var lastTransactions: [LastTransaction]
    }

    package struct LastTransaction: Sendable, Equatable, Decodable {
        /// 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
        package var status: Int?
        package var originalTransactionId: String?
        package var signedTransactionInfo: String?
        package var signedRenewalInfo: String?
    }

    package var environment: String?
    package var bundleId: String?
    package var appAppleId: Int64?
    package var data: [Group]
}

/// Get Notification History's request body. Dates are Apple's epoch milliseconds; `startDate` at most 180 days ago.
package struct NotificationHistoryQuery: Sendable, Equatable, Encodable {
    package var startDate: Int64
    package var endDate: Int64
    package var notificationType: String?
    package var notificationSubtype: String?
    package var transactionId: String?
    package var onlyFailures: Bool?

    package init(
        startDate: Int64, endDate: Int64, notificationType: String? = nil, notificationSubtype: String? = nil,
        transactionId: String? = nil, onlyFailures: Bool? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }
}

/// One attempt of Apple to deliver a notification.
package struct NotificationSendAttempt: Sendable, Equatable, Decodable {
    package var attemptDate: Int64?
    /// `SUCCESS`, `TIMED_OUT`, `NO_RESPONSE`, …
    package var sendAttemptResult: String?
}

/// Get Notification History: one page of the notifications Apple sent.
package struct NotificationHistoryPage: Sendable, Equatable, Decodable {
    package struct Item: Sendable, Equatable, Decodable {
        package var signedPayload: String
        package var sendAttempts: [NotificationSendAttempt]?
    }

    package var notificationHistory: [Item]
    package var hasMore: Bool
    package var paginationToken: String?

    enum CodingKeys: String, CodingKey { case notificationHistory, hasMore, paginationToken }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        notificationHistory = try c.decodeIfPresent([Item].self, forKey: .notificationHistory) ?? []
        hasMore = try c.decodeIfPresent(Bool.self, forKey: .hasMore) ?? false
        paginationToken = try c.decodeIfPresent(String.self, forKey: .paginationToken)
    }
}

/// Request a Test Notification's answer.
package struct TestNotificationRequested: Sendable, Equatable, Decodable {
    package var testNotificationToken: String
}

/// Get Test Notification Status's answer.
package struct TestNotificationStatus: Sendable, Equatable, Decodable {
    package var signedPayload: String?
    package var sendAttempts: [NotificationSendAttempt]?
}

/// Look Up Order ID's answer: `status` 0 valid, 1 invalid.
package struct OrderLookup: Sendable, Equatable, Decodable {
    package var status: Int
    package var signedTransactions: [String]?
}

/// Get Refund History (v2): one page of refunded transactions.
package struct RefundHistoryPage: Sendable, Equatable, Decodable {
    package var signedTransactions: [String]
    package var revision: String?
    package var hasMore: Bool
}

/// Send Consumption Information's body: Apple's `ConsumptionRequest` of `PUT /inApps/v2/transactions/consumption/{transactionId}`,
/// its field names and string values (the V1 body with numeric codes is for Advanced Commerce only). Absent optionals
/// are left out of the JSON.
package struct ConsumptionInformation: Sendable, Equatable, Codable {
    /// Must be true: without the customer's consent no answer is sent.
    package var customerConsented: Bool
    /// The share consumed in milliunits, 0…100000 (50% is 50000).
    package var consumptionPercentage: Int?
    /// `DELIVERED`, `UNDELIVERED_QUALITY_ISSUE`, `UNDELIVERED_WRONG_ITEM`, `UNDELIVERED_SERVER_OUTAGE` or `UNDELIVERED_OTHER`.
    package var deliveryStatus: String
    /// `DECLINE`, `GRANT_FULL` or `GRANT_PRORATED`.
    package var refundPreference: String?
    package var sampleContentProvided: Bool

    package init(
        customerConsented: Bool, consumptionPercentage: Int? = nil, deliveryStatus: String, refundPreference: String? = nil,
        sampleContentProvided: Bool
    ) {
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
