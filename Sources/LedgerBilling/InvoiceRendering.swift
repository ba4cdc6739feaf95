import Foundation
import LedgerDomain
import PostgresClient
import UTCTime

/// An invoice as finance takes it: CSV (one row per line item, for the accounting system), JSON, printable HTML.
package enum InvoiceRendering {
    /// Amounts in minor units as a decimal string in major units with the currency's own decimals (JPY 0, USD 2,
    /// KWD 3), never through floating point.
    package static func major(_ minor: Int64, _ currency: String) -> String {
        CurrencyDigits.major(minor, currency: currency)
    }

    static func range(_ from: Int, _ to: Int?) -> String { to.map { "\(from)-\($0)" } ?? "\(from)+" }

    /// CSV, RFC 4180, with the columns
    /// `invoice_number,account_id,month,kind,app_id,period,description,users,unit_price_minor,amount_minor,currency,unit_price,amount`;
    /// the last two are the same amounts in major units with the currency's own decimals.
    /// Kinds: `usage` (an app's paying users, no amount), `band` (a price band), `adjustment` (late users of an
    /// earlier month), `total`.
    package static func csv(_ invoice: Invoice) -> String {
        let c = invoice.content
        var rows = [
            [
                "invoice_number", "account_id", "month", "kind", "app_id", "period", "description", "users",
                "unit_price_minor", "amount_minor", "currency", "unit_price", "amount"
            ]
        ]
        let m = { (minor: Int64) in major(minor, c.currency) }
        let head = [invoice.displayNumber, c.accountID, c.month]
        for app in c.apps {
            rows.append(head + ["usage", app.appID, c.month, "paying users", "\(app.payingUsers)", "", "", c.currency, "", ""])
        }
        for band in c.bands {
            rows.append(
                head + [
                    "band", "", c.month, "users \(range(band.from, band.to))", "\(band.users)",
                    "\(band.unitPriceMinor)", "\(band.amountMinor)", c.currency, m(band.unitPriceMinor), m(band.amountMinor)
                ])
        }
        for adjustment in c.adjustments {
            rows.append(
                head + [
                    "adjustment", adjustment.appID, adjustment.month, "late paying users (plan \(adjustment.planID))",
                    "\(adjustment.users)", "", "\(adjustment.amountMinor)", c.currency, "", m(adjustment.amountMinor)
                ])
        }
        rows.append(head + ["total", "", c.month, "total", "\(c.payingUsers)", "", "\(c.totalMinor)", c.currency, "", m(c.totalMinor)])
        return rows.map { $0.map(field).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    private static func field(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The invoice and its facts as JSON: number, status, hash, log snapshot, and the content.
    package static func json(_ invoice: Invoice) -> String {
        let header = [
            "\"id\":\(quoted(invoice.id))", "\"number\":\(quoted(invoice.displayNumber))", "\"status\":\(quoted(invoice.status))",
            "\"account_id\":\(quoted(invoice.accountID))", "\"month\":\(quoted(invoice.month))",
            "\"finalized_at\":\(quoted(invoice.finalizedAt.rfc3339))", "\"content_hash\":\(quoted(invoice.contentHashHex))",
            "\"snapshot\":\(quoted(invoice.snapshot))", "\"replaces\":\(invoice.replaces.map(quoted) ?? "null")",
            "\"replaced_by\":\(invoice.replacedBy.map(quoted) ?? "null")",
            "\"voided_at\":\(invoice.voidedAt.map { quoted($0.rfc3339) } ?? "null")",
            "\"void_reason\":\(invoice.voidReason.map(quoted) ?? "null")",
            "\"total\":\(quoted(major(invoice.content.totalMinor, invoice.content.currency)))"
        ]
        return "{" + header.joined(separator: ",") + ",\"content\":" + contentJSON(invoice.content) + "}"
    }

    /// Invoice content as the API, the console's downloads and the CLI give it: snake_case members like the rest of the
    /// API. Only the names differ from the stored, hashed form (`InvoiceCanonicalJSON`, camelCase), which never
    /// changes: changing it would change every finalized invoice's hash.
    package static func contentJSON(_ content: InvoiceContent) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase  // accountID → account_id, totalMinor → total_minor
        // Encoding plain structs of strings and integers cannot fail.
        return (try? String(decoding: encoder.encode(content), as: UTF8.self)) ?? "{}"
    }

    package static func quoted(_ text: String) -> String {
        let encoded = (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) }
        return encoded ?? "\"\""
    }

    /// A printable HTML page.
    package static func html(_ invoice: Invoice, accountName: String) -> String {
        let c = invoice.content
        func e(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        var lines: [String] = []
        for band in c.bands {
            lines.append(
                "<tr><td>Paying users \(range(band.from, band.to))</td><td class=n>\(band.users)</td><td "
                    + "class=n>\(major(band.unitPriceMinor, c.currency))</td><td class=n>\(major(band.amountMinor, c.currency))</td></tr>")
        }
        for a in c.adjustments {
            lines.append(
                "<tr><td>Adjustment: late paying users of \(e(a.month)), app \(e(a.appID))</td><td class=n>\(a.users)</td><td></td><td "
                    + "class=n>\(major(a.amountMinor, c.currency))</td></tr>")
        }
        let apps = c.apps.map { "<tr><td>\(e($0.appID))</td><td class=n>\($0.payingUsers)</td></tr>" }.joined()
        let status =
            invoice.status == "voided"
            ? "<p class=void>VOIDED \(e(invoice.voidReason ?? "")) — replaced by " + "\(e(invoice.replacedBy ?? ""))</p>" : ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Invoice \(invoice.displayNumber)</title>
            <style>body{font:14px/1.4 system-ui,sans-serif;max-width:48em;margin:2em auto}table{border-collapse:collapse;width:100%;margin:1em 0}
            td,th{border-bottom:1px solid #ccc;padding:.3em;text-align:left}.n{text-align:right}.void{color:#b00;font-weight:bold}
            @media print{body{margin:0}}</style></head><body>
            <h1>Invoice \(invoice.displayNumber)</h1>\(status)
            <p>Subscription Ledger usage for <b>\(e(accountName))</b> (\(e(c.accountID))), \(e(c.month)) (UTC).<br>
            Finalized \(invoice.finalizedAt.rfc3339). Plan \(e(c.planID)), amounts in \(e(c.currency)).</p>
            <h2>Paying users by app</h2><table><tr><th>App</th><th class=n>Paying users</th></tr>\(apps)</table>
            <h2>Charges</h2><table><tr><th>Item</th><th class=n>Users</th><th class=n>Unit price</th><th class=n>Amount</th></tr>
            \(lines.joined(separator: "\n"))
            <tr><th>Total</th><th class=n>\(c.payingUsers)</th><th></th><th class=n>\(major(c.totalMinor, c.currency))\
             \(e(c.currency))</th></tr></table>
            <p><small>Content SHA-256 \(invoice.contentHashHex); reproducible from the event log with
            <code>ledger invoices show --id \(e(invoice.id)) --as-of</code>.</small></p>
            </body></html>
            """
    }
}
