import Hummingbird
import LedgerBilling
import LedgerDomain
import LedgerOperators
import LedgerPrivacy
import LedgerRecording
import LedgerStore
import LedgerTenancy
import Logging
import NIOCore
import UTCTime

/// Finance's side: invoices by month and account (the same `InvoiceStore` as `ledger invoices` and the admin API,
/// rendered by `InvoiceRendering`), finalize and void with a confirmation step, downloads, and charts.
extension Console {
    static let payingUsersPage = 100

    func financePage(_ request: ConsoleRequest) async throws -> Response {
        let month = try request.month(request.query("month"))
        let account = request.query("account")
        let accounts = try await tenancy.accounts()
        let list = try await invoices.list(account: account, month: month)
        let now = clock.now()
        async let paying = trends.payingUsersPerMonth(account: account)
        async let active = trends.activeSubscriptionsPerMonth(account: account, now: now)
        async let started = trends.newSubscriptionsPerMonth(account: account)
        async let churned = trends.churnedSubscriptionsPerMonth(account: account, now: now)
        async let revenue = self.revenue.perMonth(account.map { RevenueQueries.Scope.account($0) } ?? .all)

        let accountOptions = accounts.map { HTML.option($0.id, "\($0.name) (\($0.id))", selected: $0.id == account) }.joined()
        var body = """
            <form method=get action="/console/finance" id=invoice-filter>
            <label>Month <input name=month placeholder=YYYY-MM value="\(HTML.escape(month?.description ?? ""))"></label>
            <label>Account <select name=account><option value="">all</option>\(accountOptions)</select></label>
            <button type=submit>Show</button></form>
            <h2>Invoices</h2>
            """
        body += HTML.table(
            ["Number", "Account", "Month", "Status", "Paying users", "Total", "Finalized"],
            list.map { invoice in
                [
                    HTML.link("/console/finance/invoices/\(HTML.urlComponent(invoice.id))", invoice.displayNumber), HTML.escape(invoice.accountID),
                    HTML.escape(invoice.month), HTML.escape(invoice.status), String(invoice.content.payingUsers),
                    HTML.escape(InvoiceRendering.major(invoice.content.totalMinor, invoice.content.currency) + " " + invoice.content.currency),
                    HTML.time(invoice.finalizedAt)
                ]
            }, id: "invoices")
        body +=
            "<h2>Finalize a month</h2>"
            + request.form(
                action: "/console/finance/finalize", roles: Needs.invoiceWrites,
                fields: """
                    <label>Month <input name=month id=finalize-month required placeholder=YYYY-MM \
                    value="\(HTML.escape(month?.description ?? ""))"></label>
                    <label>Account <select name=account id=finalize-account>\(accountOptions)</select></label>
                    """, button: "Finalize…")

        body += "<h2>Charts\(account.map { " for \(HTML.escape($0))" } ?? ", all accounts")</h2><div class=cols>"
        body += SVGChart.bars(title: "Paying users per month", points: try await paying.map { ($0.month, $0.value) })
        body += SVGChart.bars(title: "Active subscriptions per month", points: try await active.map { ($0.month, $0.value) })
        body += SVGChart.bars(title: "New subscriptions per month", points: try await started.map { ($0.month, $0.value) })
        body += SVGChart.bars(title: "Churned subscriptions per month", points: try await churned.map { ($0.month, $0.value) })
        // The API's figures (`RevenueQueries`): production App Store and external payments; both gross and net of refunds.
        let byCurrency = Dictionary(grouping: try await revenue) { $0.currency }
        for currency in byCurrency.keys.sorted() {
            let months = byCurrency[currency, default: []]
            let money = { (minor: Int64) in InvoiceRendering.major(minor, currency) }
            body += SVGChart.bars(
                title: "Revenue per month, \(currency), gross (production App Store and external payments)",
                points: months.map { ($0.month, $0.grossMinor) }, format: money)
            body += SVGChart.bars(
                title: "Revenue per month, \(currency), net of refunds (gross less refunded payments)",
                points: months.map { ($0.month, $0.netMinor) }, format: money)
        }
        body += "</div>"
        return request.page("Finance", body)
    }

    func finalize(_ request: ConsoleRequest) async throws -> Response {
        guard let month = try request.month(try request.field("month")) else { throw ConsoleError(.badRequest, "Give a month.") }
        let account = try request.field("account")
        // Refused before the confirmation step too: no confirming can make a running month finalizable.
        try invoices.requireEnded(month)
        guard request.form["confirm"] == "yes" else {
            let draft = try await invoices.draft(account: account, month: month)
            let fields = HTML.hidden("month", month.description) + HTML.hidden("account", account) + HTML.hidden("confirm", "yes")
            let body = """
                <p id=confirm-text>Finalize the invoice of account <b>\(HTML.escape(account))</b> for <b>\(HTML.escape(month.description))</b>:
                \(draft.payingUsers) paying users, total \(HTML.escape(InvoiceRendering.major(draft.totalMinor, draft.currency))) \
                \(HTML.escape(draft.currency))? A finalized invoice never changes; a correction voids it and issues a replacement.</p>
                """
                + request.form(
                    action: "/console/finance/finalize", roles: Needs.invoiceWrites, fields: fields, button: "Yes, finalize", confirm: true)
                + "<p><a href=\"/console/finance\">Cancel</a></p>"
            return request.page("Confirm finalizing", body)
        }
        let (invoice, created) = try await invoices.finalize(account: account, month: month)
        await recordDone(
            "invoice.finalize", target: invoice.id, detail: "\(account) \(month) \(created ? "created" : "already finalized")",
            by: try request.operatorActor())
        logger.info("console finalized an invoice", metadata: ["invoice": "\(invoice.id)", "created": "\(created)"])
        return Self.redirect("/console/finance/invoices/\(HTML.urlComponent(invoice.id))")
    }

    func findInvoice(_ request: ConsoleRequest) async throws -> Invoice {
        let id = try request.path("invoice")
        guard let invoice = try await invoices.invoice(id: id) else { throw ConsoleError(.notFound, "There is no invoice \(id).") }
        return invoice
    }

    func invoicePage(_ request: ConsoleRequest) async throws -> Response {
        let invoice = try await findInvoice(request)
        let c = invoice.content
        let after = request.query("after") ?? ""
        let paying = try await trends.payingUsers(account: invoice.accountID, month: invoice.month, after: after, limit: Self.payingUsersPage)
        let base = "/console/finance/invoices/\(HTML.urlComponent(invoice.id))"
        func money(_ minor: Int64) -> String { HTML.escape(InvoiceRendering.major(minor, c.currency) + " " + c.currency) }
        var body = """
            <p id=invoice-status>Invoice <b>\(HTML.escape(invoice.displayNumber))</b> of account <b>\(HTML.escape(invoice.accountID))</b> for \
            \(HTML.escape(invoice.month)): <b>\(HTML.escape(invoice.status))</b>, finalized \(HTML.time(invoice.finalizedAt)), plan \
            \(HTML.escape(c.planID)). Total <b id=total>\(money(c.totalMinor))</b>.</p>
            """
        if request.may(Needs.downloads) {
            body += """
                <p>Download: <a id=download-csv href="\(HTML.escape(base))/download?format=csv">CSV</a> ·
                <a href="\(HTML.escape(base))/download?format=json">JSON</a> · <a href="\(HTML.escape(base))/download?format=html">HTML</a></p>
                """
        }
        if invoice.status == "voided" {
            body +=
                "<p class=bad>Voided \(HTML.time(invoice.voidedAt)): \(HTML.escape(invoice.voidReason ?? "")); replaced by "
                + (invoice.replacedBy.map { HTML.link("/console/finance/invoices/\(HTML.urlComponent($0))", $0) } ?? "—") + "</p>"
        }
        if let replaces = invoice.replaces {
            body += "<p>Replaces \(HTML.link("/console/finance/invoices/\(HTML.urlComponent(replaces))", replaces)).</p>"
        }
        body +=
            "<h2>Bands</h2>"
            + HTML.table(
                ["Paying users", "Users", "Unit price", "Amount"],
                c.bands.map { band in
                    [
                        HTML.escape(band.to.map { "\(band.from)–\($0)" } ?? "\(band.from)+"), String(band.users), money(band.unitPriceMinor),
                        money(band.amountMinor)
                    ]
                }, id: "bands")
        body +=
            "<h2>Adjustment lines</h2>"
            + HTML.table(
                ["Month", "App", "Late paying users", "Amount"],
                c.adjustments.map { a in
                    [HTML.escape(a.month), HTML.escape(a.appID), String(a.users), money(a.amountMinor)]
                }, id: "adjustments")
        body += "<h2>Paying users by app</h2>" + HTML.table(["App", "Paying users"], c.apps.map { [HTML.escape($0.appID), String($0.payingUsers)] })
        body +=
            "<h2>Paying users</h2>"
            + HTML.table(
                ["App", "App user"], try await appUserIDs(paying).map { [HTML.escape($0.app), HTML.escape($0.user)] }, id: "paying-users")
        if paying.count == Self.payingUsersPage, let last = paying.last {
            body += "<p><a href=\"\(HTML.escape(base))?after=\(HTML.escape(HTML.urlComponent(last.app + " " + last.user)))\">Next page</a></p>"
        }
        if invoice.status == "finalized" {
            body +=
                "<h2>Void</h2>"
                + request.form(
                    action: base + "/void", roles: Needs.invoiceWrites,
                    fields: """
                        <label>Reason <input name=reason required maxlength=1000 size=50></label>
                        """, button: "Void…")
        }
        return request.page("Invoice \(invoice.displayNumber)", body)
    }

    func download(_ request: ConsoleRequest) async throws -> Response {
        let invoice = try await findInvoice(request)
        let text: String
        let type: String
        let ext: String
        switch request.query("format") ?? "csv" {
        case "csv": (text, type, ext) = (InvoiceRendering.csv(invoice), "text/csv; charset=utf-8", "csv")
        case "json": (text, type, ext) = (InvoiceRendering.json(invoice), "application/json; charset=utf-8", "json")
        case "html":
            let name = try await tenancy.account(id: invoice.accountID)?.name ?? invoice.accountID
            (text, type, ext) = (InvoiceRendering.html(invoice, accountName: name), "text/html; charset=utf-8", "html")
        default: throw ConsoleError(.badRequest, "`format` is csv, json or html.")
        }
        // The id is the ledger's own (letters, digits, `_`), but the file name is made safe all the same.
        let name = String(invoice.displayNumber.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" })
        return Response(
            status: .ok,
            headers: [
                .contentType: type, .contentDisposition: "attachment; filename=\"invoice-\(name).\(ext)\"", .cacheControl: "no-store"
            ], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    func void(_ request: ConsoleRequest) async throws -> Response {
        let invoice = try await findInvoice(request)
        let reason = try request.field("reason")
        guard reason.count <= 1000 else { throw ConsoleError(.badRequest, "A reason is at most 1000 characters.") }
        let base = "/console/finance/invoices/\(HTML.urlComponent(invoice.id))"
        guard request.form["confirm"] == "yes" else {
            let body =
                "<p id=confirm-text>Void invoice <b>\(HTML.escape(invoice.displayNumber))</b> because “\(HTML.escape(reason))”? "
                + "A replacement is computed from the log and finalized in its place.</p>"
                + request.form(
                    action: base + "/void", roles: Needs.invoiceWrites, fields: HTML.hidden("reason", reason) + HTML.hidden("confirm", "yes"),
                    button: "Yes, void", confirm: true) + "<p><a href=\"\(HTML.escape(base))\">Cancel</a></p>"
            return request.page("Confirm voiding", body)
        }
        let (voided, replacement) = try await invoices.void(invoiceID: invoice.id, reason: reason)
        await recordDone(
            "invoice.void", target: voided.id, detail: "replaced by \(replacement.id): \(reason)", by: try request.operatorActor())
        return Self.redirect("/console/finance/invoices/\(HTML.urlComponent(replacement.id))")
    }
}

extension Console {
    /// The read models name paying users by pseudonym; finance sees the app's ids, and an erased user's pseudonym.
    func appUserIDs(_ paying: [(app: String, user: String)]) async throws -> [(app: String, user: String)] {
        var ids: [String: [String: String]] = [:]
        for (app, rows) in Dictionary(grouping: paying, by: \.app) {
            ids[app] = try await recorder.identities.userIDs(app: app, pseudonyms: rows.map(\.user))
        }
        return paying.map { ($0.app, ids[$0.app]?[$0.user] ?? $0.user) }
    }
}
