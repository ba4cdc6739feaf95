import LedgerDomain
import LedgerStore
import PostgresClient

/// Paying users per month and app (month → app → distinct paying users), two ways that must agree.
///
/// `counted` is how invoices are finalized: a grouped count over the `paying_users` read model, under that
/// projection's lock, so the count covers exactly the events its checkpoint has passed — the snapshot the invoice
/// stores. `folded` is how they are reproduced: the log itself, every event visible in a snapshot (a set that can
/// never change again), folded with the same reducer. A finalized invoice whose reproduction differs is reported
/// by `ledger verify`, with its number.
enum InvoiceUsage {
    /// The paying-users read model's counts, with the snapshot of the events they cover. Takes the projection's
    /// lock until the caller's transaction ends, so no batch moves it meanwhile.
    static func counted(on connection: PostgresConnection, apps: [String]) throws -> (usage: [String: [String: Int]], snapshot: String) {
        let snapshot = try PayingUsersQueries.lockedSnapshot(on: connection)
        guard !apps.isEmpty else { return ([:], snapshot) }
        var usage: [String: [String: Int]] = [:]
        for row in try PayingUsersQueries.counts(apps: apps, on: connection) {
            usage[row.month, default: [:]][row.appID] = row.payingUsers
        }
        return (usage, snapshot)
    }

    /// The same counts folded from the log: every event of the apps visible in `snapshot`.
    static func folded(on connection: PostgresConnection, apps: [String], snapshot: String) throws -> [String: [String: Int]] {
        guard !apps.isEmpty else { return [:] }
        var states: [String: [String: PayingPurchase]] = [:]
        var after = LogCheckpoint.start
        while true {
            // The verbatim notification records are left out: every fact in them is also a typed event.
            let rows = try EventColumns.decode(
                connection.query(
                    """
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
                apply(PayingUsersReducer.self, event, to: &states[recorded.appID, default: [:]])
            }
        }
        return PayingUsersReducer.usage(states.mapValues { Array($0.values) })
    }
}
