/// The JSON bodies the fake answers with, shaped as Apple's App Store Server API documents them.
extension FakeAppStoreServer {
    struct HistoryBody: Encodable {
        var revision: String
        var hasMore: Bool
        var bundleId: String
        var appAppleId: Int64
        var environment: String
        var signedTransactions: [String]
    }

    struct LastBody: Encodable {
        var status: Int
        var originalTransactionId: String
        var signedTransactionInfo: String
        var signedRenewalInfo: String
    }

    struct GroupBody: Encodable {
        var subscriptionGroupIdentifier: String
        var lastTransactions: [LastBody]
    }

    struct StatusesBody: Encodable {
        var environment: String
        var bundleId: String
        var appAppleId: Int64
        var data: [GroupBody]
    }

    struct HistoryQuery: Decodable {
        var startDate: Int64
        var endDate: Int64
    }

    struct NotificationItem: Encodable {
        var signedPayload: String
        var sendAttempts: [[String: String]] = [["sendAttemptResult": "NO_RESPONSE"]]
    }

    struct NotificationsBody: Encodable {
        var notificationHistory: [NotificationItem]
        var hasMore: Bool
        var paginationToken: String?
    }

    struct OrderLookupBody: Encodable {
        var status: Int
        var signedTransactions: [String]
    }

    struct RefundBody: Encodable {
        var signedTransactions: [String]
        var revision: String
        var hasMore: Bool
    }
}
