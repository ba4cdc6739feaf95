import LedgerDomain
import LedgerStore
import PostgresClient

/// Paying users per month and app, folded from the log itself (not from the projection tables, which may lag):
/// every event of the apps' transactions visible in `snapshot` (committed when it was taken), a set that can never
/// change again, so the same call gives the same answer forever — which is what lets a finalized invoice be
/// reproduced.
enum InvoiceUsage {
    /// month → app → distinct paying users.
    static func compute(on connection: PostgresConnection, apps: [String], snapshot: String) throws -> [String: [String: Int]] {
        guard !apps.isEmpty else { return [:] }
        var paying: [String: [String: PayingUserMonth]] = [:]
        var subscriptions: [String: [String: SubscriptionStatus]] = [:]
        var purchases: [String: [String: PurchaseRecord]] = [:]
        var after = LogCheckpoint.start
        while true {
            // The verbatim notification records are left out: every fact in them is also a typed event.
            let rows = try EventColumns.decode(connection.query("""
                SELECT \(unescaped: EventColumns.list) FROM ledger.events
                WHERE app_id = ANY(\(TextArray(apps))) AND transaction_id < pg_snapshot_xmax(\(snapshot)::pg_snapshot)
                  AND pg_visible_in_snapshot(transaction_id, \(snapshot)::pg_snapshot)
                  AND (transaction_id, position) > (\(TransactionIDValue(value: after.transactionID)), \(after.position))
                  AND event_type <> 'appstore.notification'
                ORDER BY transaction_id, position LIMIT 5000
                """))
            guard let last = rows.last else { break }
            after = last.checkpoint
            for recorded in rows {
                guard let event = DomainEventDecoding.decode(recorded) else { continue }
                apply(MonthlyPayingUsersReducer.self, event, to: &paying[recorded.appID, default: [:]])
                apply(SubscriptionStatusReducer.self, event, to: &subscriptions[recorded.appID, default: [:]])
                apply(PurchaseRecordReducer.self, event, to: &purchases[recorded.appID, default: [:]])
            }
        }
        var usage: [String: [String: Int]] = [:]
        for (app, rows) in paying {
            let owners = MonthlyPayingUsersReducer.owners(
                subscriptions: Array(subscriptions[app, default: [:]].values), purchases: Array(purchases[app, default: [:]].values))
            let states = Array(rows.values)
            for month in Set(states.filter(\.paying).map(\.month)) {
                guard let calendarMonth = CalendarMonth(parsing: month) else { continue }
                usage[month, default: [:]][app] = MonthlyPayingUsersReducer.count(states, month: calendarMonth, owners: owners)
            }
        }
        return usage
    }

    /// A snapshot of the log now, as text (`xmin:xmax:in-progress…`).
    static func snapshot(on connection: PostgresConnection) throws -> String {
        try connection.query("SELECT pg_current_snapshot()::text").first?.decode(String.self, at: 0) ?? "1:1:"
    }
}
