import LedgerDomain
import PostgresClient

/// Events of the log read for folding keys again: every event of some streams (at or before `through` in commit
/// order, all when nil) and the events at some positions, in position order, each once, a page at a time so a key
/// with a great many events is folded without holding them all.
package enum LogPages {
    package struct Position: Hashable, Sendable {
        package var app: String
        package var position: Int64
    }

    package static func forEach(
        streams: Set<AppScopedID>, outside: Set<Position>, through: LogCheckpoint?,
        pageSize: Int = 5_000, on connection: PostgresConnection, _ body: (DomainEvent) throws -> Void
    ) throws {
        guard !streams.isEmpty || !outside.isEmpty else { return }
        let bound = through.map { TransactionIDValue(value: $0.transactionID) }
        let apps = TextArray(streams.map(\.app)), ids = TextArray(streams.map(\.id))
        let elsewhere = outside.sorted { $0.position < $1.position }
        var after: Int64 = 0
        var nextElsewhere = 0
        while true {
            // A page is the first `pageSize` events after `after` of the streams' events and of the next `pageSize`
            // positions outside them, each side read by its own index (an `OR` of the two would scan the log).
            // `outside` positions come from a pass below `through`, so they need no bound of their own.
            while nextElsewhere < elsewhere.count, elsewhere[nextElsewhere].position <= after { nextElsewhere += 1 }
            let slice = elsewhere[nextElsewhere..<min(elsewhere.count, nextElsewhere + pageSize)]
            let page = try EventColumns.decode(
                connection.query(
                    """
                    SELECT * FROM (
                        (SELECT \(unescaped: EventColumns.listSkippingRecords) FROM ledger.events
                         WHERE (app_id, stream_id) IN (SELECT * FROM unnest(\(apps), \(ids)))
                           AND (\(bound)::xid8 IS NULL OR (transaction_id, position) <= (\(bound)::xid8, \(through?.position ?? 0)))
                           AND position > \(after)
                         ORDER BY position LIMIT \(pageSize))
                        UNION ALL
                        SELECT \(unescaped: EventColumns.listSkippingRecords) FROM ledger.events
                        WHERE (app_id, position) IN (SELECT * FROM unnest(\(TextArray(slice.map(\.app))), \(Int64Array(slice.map(\.position)))))
                    ) page ORDER BY position LIMIT \(pageSize)
                    """))
            guard let last = page.last?.position, last > after else { return }
            // An event of a stream may also be at a position named outside it: read twice, given once.
            var previous: Int64 = after
            for event in page.compactMap(DomainEventDecoding.decode) where event.position != previous {
                previous = event.position
                try body(event)
            }
            after = last
        }
    }
}
