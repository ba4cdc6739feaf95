import LedgerDomain
import UTCTime

/// `identity.linked` events for the ingest paths.
///
/// The link's instant is the subscription's original purchase date (the purchase date when Apple gives none),
/// not the time of the upload. Why:
/// - it is in the signed data, so the SDK upload, the receipt upload, the notification (through
///   `appAccountToken`), retries and every renewal of one subscription produce the same key
///   (`link:<user>:<otid>:<instant>`) and the link is recorded once;
/// - a link never claims to be newer than it is, so it cannot override a transfer or a restore decided under the
///   app's transfer policy. Callers must still send an upload naming an original transaction id already owned by
///   another user through `RestoreRules` instead of appending its link.
enum IdentityLinks {
    static func link(
        _ appUserID: String, originalTransactionID: String, since: Instant, source: LinkSource
    ) -> LedgerEvent {
        .linked(
            TransactionLink(
                appUserID: appUserID, originalTransactionIDs: [originalTransactionID], linkedAt: since, source: source))
    }

    /// The instant a transaction's links are stamped with.
    static func since(_ facts: TransactionFacts) -> Instant {
        facts.originalPurchaseDate ?? facts.purchaseDate
    }
}
