// LedgerDomain: the pure domain of the Subscription Ledger (SPEC §2: no I/O, replayable, exhaustively tested).
//
// Layout
// - Money: exact money (Int64 milliunits); LedgerClock, the one "now". Time itself (`Instant`, `CalendarMonth`) is UTCTime's.
// - Events/: `LedgerEvent` (the table of stored type names and schema versions is on it), one file per family of
//   payloads, `EventCodec` (versioned encode / decode with upcasting), `IdempotencyKey`.
// - Mapping/: `DecodedNotification` → events (`AppStoreNotificationMapping`), pure, for the verification module
//   to call after it has checked signatures.
// - DomainEvent.swift: `DomainEvent`, `ProjectionReducer`, `fold` / `foldAll` (as-of by recordedAt).
// - Stamp.swift: last-writer-wins registers and owner claims, the reason the reducers converge under
//   out-of-order and duplicated delivery.
// - Projections/: reducers keyed per original transaction id (`SubscriptionStatusReducer`,
//   `PurchaseRecordReducer`) and per month and purchase (`MonthlyPayingUsersReducer`); per-user projections
//   (products status, entitlements, unconsumed purchases, activated subscriptions, intro-offer eligibility)
//   and expiring soon are pure queries over those states selected by owner (see `UserView` for why).
// - Rules/: consume and restore, returning events or typed errors.
// - StateCodec.swift: deterministic JSON for projection states (rebuild == live comparisons).
