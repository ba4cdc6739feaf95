/// The event log's stream names, defined once for every writer (ingest, consume, restore).
public enum LedgerStreams {
    /// Every fact about one purchase: folding it gives the purchase's exact state, and appending with its version
    /// guards decisions taken on that state.
    public static func purchase(originalTransactionID: String) -> String { purchasePrefix + originalTransactionID }

    /// Whether `stream` is the purchase stream of `originalTransactionID`, without building the stream's name.
    public static func isPurchase(_ stream: Substring, originalTransactionID: String) -> Bool {
        matches(stream, prefix: purchasePrefix, name: originalTransactionID)
    }

    /// The original transaction id of a purchase stream; nil for any other stream.
    public static func originalTransactionID(ofPurchase stream: String) -> String? {
        stream.hasPrefix(purchasePrefix) ? String(stream.dropFirst(purchasePrefix.count)) : nil
    }

    private static let purchasePrefix = "otx:"

    /// Facts about one app user rather than a purchase (their consent to consumption answers, support grants). The
    /// user's timeline shows it with their purchases' streams.
    public static func user(appUserID: String) -> String { userPrefix + appUserID }

    /// Whether `stream` is the user stream of `appUserID`, without building the stream's name.
    public static func isUser(_ stream: Substring, appUserID: String) -> Bool {
        matches(stream, prefix: userPrefix, name: appUserID)
    }

    private static let userPrefix = "user:"

    /// Whether `stream` is `prefix` followed by `name`, compared byte by byte.
    private static func matches(_ stream: Substring, prefix: String, name: String) -> Bool {
        stream.utf8.count == prefix.utf8.count + name.utf8.count && stream.utf8.starts(with: prefix.utf8)
            && stream.utf8.dropFirst(prefix.utf8.count).elementsEqual(name.utf8)
    }

    /// The app user id of a user's own stream; nil for any other stream.
    public static func appUserID(ofUser stream: String) -> String? {
        stream.hasPrefix(userPrefix) ? String(stream.dropFirst(userPrefix.count)) : nil
    }

    /// A notification that names no transaction (TEST, summaries, external purchase tokens, app-level ones).
    public static func notification(uuid: String) -> String { "notification:" + uuid }
}
