/// The event log's stream names, defined once for every writer (ingest, consume, restore).
public enum LedgerStreams {
    /// Every fact about one purchase: folding it gives the purchase's exact state, and appending with its version
    /// guards decisions taken on that state.
    public static func purchase(originalTransactionID: String) -> String { purchasePrefix + originalTransactionID }

    /// Whether `stream` is the purchase stream of `originalTransactionID`, without building the stream's name.
    public static func isPurchase(_ stream: Substring, originalTransactionID: String) -> Bool {
        stream.utf8.count == purchasePrefix.utf8.count + originalTransactionID.utf8.count
            && stream.utf8.starts(with: purchasePrefix.utf8)
            && stream.utf8.dropFirst(purchasePrefix.utf8.count).elementsEqual(originalTransactionID.utf8)
    }

    /// The original transaction id of a purchase stream; nil for any other stream.
    public static func originalTransactionID(ofPurchase stream: String) -> String? {
        stream.hasPrefix(purchasePrefix) ? String(stream.dropFirst(purchasePrefix.count)) : nil
    }

    private static let purchasePrefix = "otx:"

    /// Facts about one app user rather than a purchase (their consent to consumption answers). The user's timeline
    /// shows it with their purchases' streams.
    public static func user(appUserID: String) -> String { "user:" + appUserID }

    /// The app user id of a user's own stream; nil for any other stream.
    public static func appUserID(ofUser stream: String) -> String? {
        stream.hasPrefix("user:") ? String(stream.dropFirst("user:".count)) : nil
    }

    /// A notification that names no transaction (TEST, summaries, external purchase tokens, app-level ones).
    public static func notification(uuid: String) -> String { "notification:" + uuid }
}
