import LedgerDomain
import LedgerStore
import PostgresClient
import UTCTime

/// Apple's consumption requests (`transaction.consumption_requested`) that no `transaction.consumption_information_sent`
/// answers yet, oldest first.
package struct ConsumptionRequestQueries: Sendable {
    package let pool: PostgresPool

    package init(pool: PostgresPool) { self.pool = pool }

    /// Those Apple signed at or after `since` (its `occurred_at`): older ones can no longer be answered, and without
    /// this bound requests left unanswered for good (no consent) would fill `limit` and hide the new ones.
    package func unanswered(app appID: String, since: Instant, limit: Int = 100) async throws -> [ConsumptionRequest] {
        let rows = try await pool.query(
            """
            SELECT r.schema_version, r.payload::text FROM ledger.events r
            WHERE r.app_id = \(appID) AND r.event_type = 'transaction.consumption_requested' AND r.occurred_at >= \(since)
              AND NOT EXISTS (SELECT 1 FROM ledger.events a WHERE a.app_id = r.app_id
                              AND a.idempotency_key = 'consumption_information:' || (r.payload->>'transactionID'))
            ORDER BY r.position LIMIT \(Int64(limit))
            """)
        return try rows.compactMap { row in
            let event = try LedgerEvent.decode(
                type: "transaction.consumption_requested", schemaVersion: try row.decode(Int32.self, at: 0),
                payload: try row.decode(String.self, at: 1))
            if case .consumptionRequested(let request) = event { return request }
            return nil
        }
    }
}
