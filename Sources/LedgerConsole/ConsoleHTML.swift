import LedgerDomain
import UTCTime

/// The console's pages are Swift strings: every value that comes from a request or the database goes through
/// `HTML.escape` (or `HTML.attribute`, the same) before it is put into markup, and the fixed markup around it is
/// written here and in the page files. No template engine: one place to read, nothing to load at run time.
package enum HTML {
    /// Escapes text for an element's content or a quoted attribute value: `& < > " '`.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// Percent-encodes a value for a query string or a path segment (everything but unreserved characters).
    package static func urlComponent(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out += "%"
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }

    /// A link whose target and text are escaped.
    static func link(_ href: String, _ text: String) -> String { "<a href=\"\(escape(href))\">\(escape(text))</a>" }

    /// A table: the header cells are fixed text (escaped), each row's cells are markup the caller escaped.
    static func table(_ headers: [String], _ rows: [[String]], id: String? = nil) -> String {
        guard !rows.isEmpty else { return "<p class=empty>None.</p>" }
        let head = headers.map { "<th>\(escape($0))</th>" }.joined()
        let body = rows.map { "<tr>" + $0.map { "<td>\($0)</td>" }.joined() + "</tr>" }.joined(separator: "\n")
        let idAttribute = id.map { " id=\"\(escape($0))\"" } ?? ""
        return "<table\(idAttribute)><thead><tr>\(head)</tr></thead><tbody>\n\(body)\n</tbody></table>"
    }

    /// Every time a page shows, as people read it: to the second, in UTC (`2026-11-26 14:54:31 UTC`), with the full
    /// value (RFC 3339, to the microsecond, as the API and downloads give it) on hover and in `datetime`. `time`
    /// elements never wrap (`Layout.style`), so a table cannot break a date in the middle. Nil: a dash.
    static func time(_ instant: Instant?) -> String {
        guard let instant else { return "—" }
        let full = escape(instant.rfc3339)
        return "<time datetime=\"\(full)\" title=\"\(full)\">\(escape(timeText(instant)))</time>"
    }

    /// The text of `time(_:)` alone, for values compared as text (the as-of page's facts).
    static func timeText(_ instant: Instant) -> String {
        // RFC 3339 is `<date>T<hh:mm:ss>.<microseconds>Z`: the date, then the time cut to the second (not rounded).
        let full = instant.rfc3339
        guard let t = full.firstIndex(of: "T") else { return full }
        return String(full[..<t]) + " " + String(full[full.index(after: t)...].prefix(8)) + " UTC"
    }

    /// A form that writes: POST, with the session's CSRF token.
    static func form(action: String, csrf: String, fields: String, button: String, confirm: Bool = false) -> String {
        let cls = confirm ? " class=danger" : ""
        return "<form method=post action=\"\(escape(action))\"><input type=hidden name=csrf value=\"\(escape(csrf))\">"
            + "\(fields)<button type=submit\(cls)>\(escape(button))</button></form>"
    }

    static func option(_ value: String, _ label: String, selected: Bool) -> String {
        "<option value=\"\(escape(value))\"\(selected ? " selected" : "")>\(escape(label))</option>"
    }

    static func hidden(_ name: String, _ value: String) -> String {
        "<input type=hidden name=\"\(escape(name))\" value=\"\(escape(value))\">"
    }
}

/// The frame of every page: navigation, who is signed in, sign-out.
enum Layout {
    static let style = """
        body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
        header{background:#1d3557;color:#fff;padding:.6em 1.2em;display:flex;gap:1.2em;align-items:center}
        header a{color:#fff;text-decoration:none;font-weight:600}header form{margin-left:auto}
        main{padding:1em 1.5em;max-width:80em}h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em}
        table{border-collapse:collapse;margin:.5em 0;background:#fff}td,th{border:1px solid #ddd;padding:.25em .5em;
        text-align:left;vertical-align:top}th{background:#eef}pre{margin:0;white-space:pre-wrap;word-break:break-all;max-width:50em;
        font-size:12px}.changed{background:#fff3b0}.ok{color:#0a7a28;font-weight:600}.bad{color:#b00020;font-weight:600}
        .empty{color:#777}button.danger{background:#b00020;color:#fff}.notice{background:#e6f4ea;padding:.5em;border:1px solid #9c9}
        .error{background:#fdecea;padding:.5em;border:1px solid #e99}form.inline{display:inline}.cols{display:flex;gap:2em;flex-wrap:wrap}
        svg{background:#fff;border:1px solid #ddd}time{white-space:nowrap}
        """

    static func page(title: String, actor: String?, csrf: String?, body: String) -> String {
        let nav =
            actor == nil
            ? ""
            : """
            <a href="/console/customers">Customers</a><a href="/console/finance">Finance</a>\
            <a href="/console/operations">Operations</a><a href="/console/operators">Operators</a>
            """
        let signOut =
            if let actor, let csrf {
                "<form method=post action=\"/console/sign-out\">" + HTML.hidden("csrf", csrf)
                    + "<span>\(HTML.escape(actor))</span> <button type=submit id=sign-out>Sign out</button>"
                    + "<button type=submit id=sign-out-everywhere formaction=\"/console/sign-out-everywhere\">Everywhere</button></form>"
            } else { "" }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(HTML.escape(title)) · Ledger console</title><style>\(style)</style></head>
            <body><header><a href="/console">Ledger console</a>\(nav)\(signOut)</header>
            <main><h1>\(HTML.escape(title))</h1>
            \(body)
            </main></body></html>
            """
    }
}
