import Hummingbird
import LedgerDomain
import LedgerStore
import LedgerTenancy
import UTCTime

/// `GET /v1/apps/{app_id}/revenue`: the app's revenue per month and currency (`RevenueQueries`, the same figures as
/// the console's chart), for the app's secret key.
struct RevenueRoutes {
    let revenue: RevenueQueries

    /// The longest span one request may ask for: ten years of months.
    static let maximumMonths = 120

    /// One month's figures in one currency, or (without `month`) the span's total in it.
    struct Figures: Encodable {
        var month: String?
        var currency: String
        var grossMinor: Int64
        var refundsMinor: Int64
        var netMinor: Int64
        var payments: Int
        var refunds: Int

        enum CodingKeys: String, CodingKey {
            case month, currency, payments, refunds
            case grossMinor = "gross_minor"
            case refundsMinor = "refunds_minor"
            case netMinor = "net_minor"
        }
    }

    struct Answer: Encodable {
        var appID: String
        var from: String
        var to: String
        var months: [Figures]
        var totals: [Figures]

        enum CodingKeys: String, CodingKey {
            case from, to, months, totals
            case appID = "app_id"
        }
    }

    func register(on routes: RouteTable, auth: Authenticator) {
        let revenue = revenue
        let group = routes.group("/v1/apps/{app_id}/revenue", AppKeyAuthentication(auth: auth, timeout: routes.timeout, appFromPath: true))
        group.on(.get, "/v1/apps/{app_id}/revenue") { request, context in
            let caller = try context.caller()
            let (from, to) = try Self.span(from: try request.query("from"), to: try request.query("to"))
            let months = try await revenue.perMonth(.app(caller.app.id), from: from, to: to)
            return try JSONResponse.make(status: .ok, body: Self.answer(app: caller.app.id, from: from, to: to, months: months))
        }
    }

    /// The months asked for, checked: both given, `from` ≤ `to`, at most `maximumMonths`.
    static func span(from: String?, to: String?) throws(APIError) -> (CalendarMonth, CalendarMonth) {
        guard let fromText = from, let toText = to else {
            throw .badRequest("give the months as query parameters `from` and `to` (YYYY-MM, UTC, both included), e.g. ?from=2026-01&to=2026-12")
        }
        let first = try InvoiceRoutes.month(fromText, "from")
        let last = try InvoiceRoutes.month(toText, "to")
        guard first <= last else { throw .badRequest("`from` (\(first)) is after `to` (\(last)); give from ≤ to") }
        let count = (last.year - first.year) * 12 + (last.month - first.month) + 1
        guard count <= maximumMonths else {
            throw .badRequest("\(first) to \(last) is \(count) months; ask for at most \(maximumMonths) at a time (split the span)")
        }
        return (first, last)
    }

    static func answer(app: String, from: CalendarMonth, to: CalendarMonth, months: [RevenueQueries.Month]) -> Answer {
        func figures(_ month: String?, _ currency: String, _ rows: [RevenueQueries.Month]) -> Figures {
            let gross = rows.reduce(Int64(0)) { $0 + $1.grossMinor }
            let refunds = rows.reduce(Int64(0)) { $0 + $1.refundsMinor }
            return Figures(
                month: month, currency: currency, grossMinor: gross, refundsMinor: refunds, netMinor: gross - refunds,
                payments: rows.reduce(0) { $0 + $1.payments }, refunds: rows.reduce(0) { $0 + $1.refunds })
        }
        let byCurrency = Dictionary(grouping: months, by: \.currency)
        return Answer(
            appID: app, from: from.description, to: to.description,
            months: months.map { figures($0.month, $0.currency, [$0]) },
            totals: byCurrency.keys.sorted().map { figures(nil, $0, byCurrency[$0] ?? []) })
    }
}
