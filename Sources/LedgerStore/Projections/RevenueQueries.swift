import LedgerDomain
import PostgresClient
import UTCTime

/// Revenue per month and currency, read from the event log: the one computation behind
/// `GET /v1/apps/{app_id}/revenue` and the console's revenue chart.
///
/// - **Counted:** every Production payment: App Store one-time purchases, subscription starts, renewals, billing
///   recoveries and immediate upgrades at the price Apple reported, and external purchases at the price the
///   developer's server recorded. Sandbox, Xcode, LocalTesting and test payments never count (as for paying users),
///   nor App Store transactions that came without a price. A transaction is one event (its idempotency key is its
///   transaction id), so none counts twice.
/// - **Month:** the UTC month of the payment's purchase date.
/// - **Gross** is the sum of those prices; **refunds** the part of it Apple refunded (the transaction's latest refund
///   or reversal, by Apple's signing time, is a refund), counted in the month of the payment refunded, so a month's
///   refunds never exceed its gross; **net** = gross − refunds. External purchases carry no refund events.
/// - **Amounts** are summed exactly in milliunits, then rounded once to the currency's minor unit (half away from zero).
public struct RevenueQueries: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) { self.pool = pool }

    /// Whose revenue.
    public enum Scope: Sendable, Equatable {
        case app(String)
        case account(String)
        case all
    }

    /// One month's revenue in one currency (months and currencies without payments have none).
    public struct Month: Sendable, Equatable {
        /// `YYYY-MM` (UTC).
        public var month: String
        /// ISO 4217 code, as reported.
        public var currency: String
        public var grossMinor: Int64
        public var refundsMinor: Int64
        /// Payments counted in `grossMinor`, and those of them refunded.
        public var payments: Int
        public var refunds: Int
        public var netMinor: Int64 { grossMinor - refundsMinor }

        public init(month: String, currency: String, grossMinor: Int64, refundsMinor: Int64, payments: Int, refunds: Int) {
            self.month = month
            self.currency = currency
            self.grossMinor = grossMinor
            self.refundsMinor = refundsMinor
            self.payments = payments
            self.refunds = refunds
        }
    }

    /// The event types that carry an App Store payment in `transaction` (the paying events of `PayingUsersReducer`).
    static let appStorePayments = [
        "purchase.consumable", "purchase.non_consumable", "purchase.non_renewing", "subscription.started", "subscription.renewed",
        "subscription.billing_recovered", "subscription.renewal_preference_changed"
    ]
    static let external = "purchase.external"
    static let refundFacts = ["transaction.refunded", "transaction.refund_reversed"]

    /// Revenue per month and currency of `scope` from `from` through `to` (nil: unbounded), by month then currency.
    public func perMonth(_ scope: Scope, from: CalendarMonth? = nil, to: CalendarMonth? = nil) async throws -> [Month] {
        let (app, account): (String?, String?) =
            switch scope {
            case .app(let id): (id, nil)
            case .account(let id): (nil, id)
            case .all: (nil, nil)
            }
        let types = Self.appStorePayments + [Self.external] + Self.refundFacts
        let rows = try await pool.query(
            """
            WITH scoped AS MATERIALIZED (
                SELECT app_id, event_type, payload, position FROM ledger.events
                WHERE event_type = ANY(\(TextArray(types)))
                  AND (\(app)::text IS NULL OR app_id = \(app)::text)
                  AND (\(account)::text IS NULL OR app_id IN (SELECT id FROM ledger.apps WHERE account_id = \(account)::text))
            ), payments AS (
                SELECT app_id, false AS external, t ->> 'transactionID' AS transaction_id, (t ->> 'purchaseDate')::bigint AS paid_at,
                       t #>> '{price,currency}' AS currency, (t #>> '{price,milliunits}')::bigint AS milliunits
                FROM (SELECT app_id, payload -> 'transaction' AS t FROM scoped WHERE event_type = ANY(\(TextArray(Self.appStorePayments)))) a
                WHERE coalesce(t ->> 'environment', 'Production') = 'Production' AND t #>> '{price,milliunits}' IS NOT NULL
                UNION ALL
                SELECT app_id, true, payload ->> 'paymentID', (payload ->> 'purchasedAt')::bigint, payload #>> '{price,currency}',
                       (payload #>> '{price,milliunits}')::bigint
                FROM scoped WHERE event_type = \(Self.external) AND coalesce(payload ->> 'environment', 'Production') = 'Production'
            ), dated AS (
                SELECT *, to_char(('epoch'::timestamptz + paid_at * interval '1 microsecond') AT TIME ZONE 'UTC', 'YYYY-MM') AS month
                FROM payments
            ), refund_state AS (
                -- A refund can be reversed (and refunded again): the transaction's latest fact decides.
                SELECT DISTINCT ON (app_id, payload ->> 'transactionID') app_id, payload ->> 'transactionID' AS transaction_id,
                       event_type = 'transaction.refunded' AS refunded
                FROM scoped WHERE event_type = ANY(\(TextArray(Self.refundFacts)))
                ORDER BY app_id, payload ->> 'transactionID', (payload #>> '{subscription,signedDate}')::bigint DESC, position DESC
            )
            SELECT d.month, d.currency, sum(d.milliunits)::bigint, count(*),
                   coalesce(sum(d.milliunits) FILTER (WHERE r.refunded), 0)::bigint, count(*) FILTER (WHERE r.refunded)
            FROM dated d LEFT JOIN refund_state r ON NOT d.external AND r.app_id = d.app_id AND r.transaction_id = d.transaction_id
            WHERE (\(from?.description)::text IS NULL OR d.month >= \(from?.description)::text)
              AND (\(to?.description)::text IS NULL OR d.month <= \(to?.description)::text)
            GROUP BY d.month, d.currency ORDER BY d.month, d.currency
            """)
        return try rows.map { row in
            let currency = try row.decode(String.self, at: 1)
            return Month(
                month: try row.decode(String.self, at: 0), currency: currency,
                grossMinor: Self.minorUnits(milliunits: try row.decode(Int64.self, at: 2), currency: currency),
                refundsMinor: Self.minorUnits(milliunits: try row.decode(Int64.self, at: 4), currency: currency),
                payments: Int(try row.decode(Int64.self, at: 3)), refunds: Int(try row.decode(Int64.self, at: 5)))
        }
    }

    /// Milliunits (thousandths, as prices are recorded) to the currency's minor units, rounded half away from zero;
    /// integers only.
    public static func minorUnits(milliunits: Int64, currency: String) -> Int64 {
        let digits = CurrencyDigits.of(currency)
        if digits >= 3 { return (0..<(digits - 3)).reduce(milliunits) { value, _ in value * 10 } }
        var divisor: Int64 = 1
        for _ in 0..<(3 - digits) { divisor *= 10 }
        let half = divisor / 2
        return milliunits >= 0 ? (milliunits + half) / divisor : (milliunits - half) / divisor
    }
}
