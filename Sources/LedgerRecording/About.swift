/// The application layer of every write: the one way into the event log.
///
/// Each write a user of the ledger can make — Apple's notification, the SDK's signed transactions, a legacy receipt,
/// a restore, a consumption, a consent to consumption answers, a purchase made outside the App Store — is one call on
/// `LedgerRecorder`. It verifies what must be verified (offline, against the app's trust roots), turns it into domain
/// events (`AppStoreIngest`, the domain's rules), and appends them through the store's idempotent operations. Its
/// failures are `RecordingError`s in the domain's words; the edges (HTTP, CLI) only translate them.
///
///     HTTP route / CLI command → LedgerRecorder → AppStoreIngest + LedgerDomain rules → LedgerStore → PostgreSQL
enum About {}
