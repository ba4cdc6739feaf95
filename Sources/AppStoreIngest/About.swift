// AppStoreIngest: verified App Store data → ledger events, ready to append (issue 4, items 2 and 3). Pure: no I/O.
//
// Layout
// - NotificationIngest: a `VerifiedNotification` → `DecodedNotification` → `AppStoreNotificationMapping` events.
// - TransactionIngest: a StoreKit 2 transaction (+ renewal info) uploaded by the SDK for an app user → events.
// - ReceiptIngest: a verified legacy `AppReceipt` uploaded for an app user → events.
// - StreamNaming: which event-log stream each event goes to (`otx:<original transaction id>`,
//   `notification:<uuid>`), identity events split per original transaction, idempotency keys.
// - TransactionFactsConversion, ProductTypeConversion, RenewalInfoConversion, AppStoreDates: the shared field
//   conversions, so the three paths produce the same `TransactionFacts` and keys for the same purchase.
// - AppAccountTokenPolicy, IdentityLinks: how app users are attached to original transaction ids.
//
// Conventions every path follows (why: the same purchase must yield the same idempotency keys and payloads
// whichever way it arrives, so it is recorded once):
// - Dates are Apple's epoch milliseconds truncated to whole milliseconds (`AppStoreTimestamp.wholeMilliseconds`),
//   so Xcode's fractional milliseconds (`1697679936049.7297`) and a receipt's whole milliseconds agree. The exact
//   text survives in the verbatim notification record.
// - `TransactionFacts.signedDate` is the transaction's purchase date, not the date Apple signed this copy: each
//   copy (notification, SDK fetch, receipt) is signed at a different time, and receipts have no per-purchase
//   signing date. Facts about one transaction never compete with each other (they share the key `tx:<id>`), so
//   nothing is lost; signing dates that do order facts (notifications, renewal info) are kept where the domain
//   uses them (`SubscriptionRef.signedDate`).
