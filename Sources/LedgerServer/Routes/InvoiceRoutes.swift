import Foundation
import Hummingbird
import LedgerBilling
import LedgerDomain
import LedgerOperators
import LedgerStore
import LedgerTenancy
import NIOCore
import UTCTime

/// `/v1/admin/invoices…` and `/v1/admin/plans`: finance's side (admin token), the same operations as
/// `ledger invoices`.
struct InvoiceRoutes {
    let invoices: InvoiceStore
    let tenancy: TenancyStore
    let body: RequestBodyReader

    struct FinalizeInput: StrictBody {
        var month: String
        var accountID: String?

        enum CodingKeys: String, CodingKey {
            case month
            case accountID = "account_id"
        }
        static let members = plain("month", "account_id")
    }

    struct VoidInput: StrictBody {
        var reason: String
        static let members = plain("reason")
    }

    struct PlanInput: StrictBody {
        struct Tier: StrictBody {
            var from: Int
            var to: Int?
            var unitPriceMinor: Int64
            var flatFeeMinor: Int64?

            enum CodingKeys: String, CodingKey {
                case from
                case to
                case unitPriceMinor = "unit_price_minor"
                case flatFeeMinor = "flat_fee_minor"
            }
            static let members = plain("from", "unit_price_minor", "flat_fee_minor").merging(["to": .nullable]) { $1 }
        }
        var id: String
        var currency: String
        var tiers: [Tier]
        static let members = plain("id", "currency").merging(["tiers": .object(Tier.self)]) { $1 }
    }

    struct AssignInput: StrictBody {
        var planID: String
        var fromMonth: String

        enum CodingKeys: String, CodingKey {
            case planID = "plan_id"
            case fromMonth = "from_month"
        }
        static let members = plain("plan_id", "from_month")
    }

    func register(on routes: RouteTable, auth: Authenticator) {
        let admin = routes.group("/v1/admin", AdminAuthentication(auth: auth, writers: [.finance]))
        let (store, tenancy, body) = (invoices, tenancy, body)
        admin.on(.get, "/v1/admin/invoices") { request, _ in
            let account = try request.query("account_id").map { try Check.text($0, "account_id", max: 200) }
            let month = try request.query("month").map { try Self.month($0, "month") }
            let invoices = try await store.list(account: account, month: month)
            return Self.json("{\"invoices\":[" + invoices.map(InvoiceRendering.json).joined(separator: ",") + "]}")
        }
        admin.on(.get, "/v1/admin/invoice-drafts") { request, _ in
            guard let account = try request.query("account_id"), let month = try request.query("month") else {
                throw APIError.badRequest("give `account_id` and `month` (YYYY-MM) as query parameters")
            }
            let content = try await store.draft(
                account: try Check.text(String(account), "account_id", max: 200), month: try Self.month(String(month), "month"))
            return Self.json(InvoiceRendering.contentJSON(content))
        }
        admin.on(.post, "/v1/admin/invoices") { request, _ in
            let input = try await body.json(FinalizeInput.self, from: request)
            let month = try Self.month(input.month, "month")
            let results =
                if let account = input.accountID {
                    [try await store.finalize(account: try Check.text(account, "account_id", max: 200), month: month)]
                } else {
                    try await store.finalizeAll(month: month)
                }
            let items = results.map { "{\"created\":\($0.created),\"invoice\":\(InvoiceRendering.json($0.invoice))}" }
            return Self.json("{\"results\":[" + items.joined(separator: ",") + "]}")
        }
        admin.on(.get, "/v1/admin/invoices/{invoice_id}") { request, context in
            let invoice = try await Self.invoice(store, context)
            switch try request.query("format") ?? "json" {
            case "json": return Self.json(InvoiceRendering.json(invoice))
            case "csv": return Self.text(InvoiceRendering.csv(invoice), type: "text/csv; charset=utf-8")
            case "html":
                let name = try await tenancy.account(id: invoice.accountID)?.name ?? invoice.accountID
                return Self.text(InvoiceRendering.html(invoice, accountName: name), type: "text/html; charset=utf-8")
            default: throw APIError.badRequest("`format` must be json, csv or html")
            }
        }
        admin.on(.get, "/v1/admin/invoices/{invoice_id}/reproduction") { request, context in
            let invoice = try await Self.invoice(store, context)
            let reproduced = try await store.reproduce(id: invoice.id)
            return Self.json(
                """
                {"id":\(InvoiceRendering.quoted(invoice.id)),"stored_hash":"\(invoice.contentHashHex)",\
                "stored_content_matches_hash":\(reproduced.storedContentMatchesHash),\
                "recomputed_hash":"\(reproduced.recomputedHashHex)","reproduced":\(reproduced.isReproduced)}
                """)
        }
        admin.on(.post, "/v1/admin/invoices/{invoice_id}/void") { request, context in
            let invoice = try await Self.invoice(store, context)
            let input = try await body.json(VoidInput.self, from: request)
            let reason = try Check.text(input.reason, "reason", max: 1000)
            let (voided, replacement) = try await store.void(invoiceID: invoice.id, reason: reason)
            return Self.json("{\"voided\":\(InvoiceRendering.json(voided)),\"replacement\":\(InvoiceRendering.json(replacement))}")
        }
        admin.on(.post, "/v1/admin/plans") { request, _ in
            let input = try await body.json(PlanInput.self, from: request)
            let plan = PricePlan(
                id: try Check.text(input.id, "id", max: 100), currency: input.currency,
                tiers: input.tiers.map {
                    PricePlan.Tier(from: $0.from, to: $0.to, unitPriceMinor: $0.unitPriceMinor, flatFeeMinor: $0.flatFeeMinor ?? 0)
                })
            _ = try await store.createPlan(plan)
            return try JSONResponse.make(status: .created, body: ["id": plan.id])
        }
        admin.on(.put, "/v1/admin/accounts/{account_id}/plan") { request, context in
            let account = try context.path("account_id")
            guard try await tenancy.account(id: account) != nil else { throw APIError.notFound("there is no account \(account)") }
            let input = try await body.json(AssignInput.self, from: request)
            let month = try Self.month(input.fromMonth, "from_month")
            try await store.assignPlan(account: account, planID: input.planID, from: month)
            return try JSONResponse.make(status: .ok, body: ["account_id": account, "plan_id": input.planID, "from_month": month.description])
        }
    }

    static func month(_ text: String, _ field: String) throws(APIError) -> CalendarMonth {
        guard let month = CalendarMonth(parsing: text) else { throw .badRequest("`\(field)` must be a month YYYY-MM, e.g. 2026-03") }
        return month
    }

    static func invoice(_ store: InvoiceStore, _ context: LedgerRequestContext) async throws -> Invoice {
        let id = try context.path("invoice_id")
        guard let invoice = try await store.invoice(id: id) else { throw APIError.notFound("there is no invoice \(id)") }
        return invoice
    }

    /// Invoice refusals as API errors.
    static func json(_ text: String) -> Response { JSONResponse.make(status: .ok, encoded: text.utf8) }

    static func text(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
