/// The event log's stream names, defined once for every writer (ingest, consume, restore).
public enum LedgerStreams {
    /// Every fact about one purchase: folding it gives the purchase's exact state, and appending with its version
    /// guards decisions taken on that state.
    public static func purchase(originalTransactionID: String) -> String { "otx:" + originalTransactionID }

    /// A notification that names no transaction (TEST, summaries, external purchase tokens, app-level ones).
    public static func notification(uuid: String) -> String { "notification:" + uuid }
}
