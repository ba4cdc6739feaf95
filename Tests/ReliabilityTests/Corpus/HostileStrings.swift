/// Hostile values for every id the API takes: path ids, query values and string members of bodies. Add a case
/// here and every operation of the OpenAPI document gets it in each of those places.
///
/// `name` is shown in a failing expectation; `encoded` is the value as a path segment or query value (percent-encoded
/// text, or bytes that are not valid UTF-8); `json` is the content of a JSON string literal (already escaped) for body
/// members. The server must refuse `encoded` in a path or query when `rejectInURL` (control characters, invalid
/// UTF-8, broken escapes) and `json` in a body when `rejectInBody` (control characters, lone surrogates). The other
/// values are odd but legal ids: the server may accept them, but never with a 5xx, and never by writing on a
/// rejected request.
struct HostileString: Sendable {
    var name, encoded, json: String
    var rejectInURL, rejectInBody: Bool

    static func text(_ name: String, _ value: String) -> HostileString {
        let control = value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        return HostileString(name: name, encoded: percentEncoded(value), json: jsonEscaped(value), rejectInURL: control, rejectInBody: control)
    }

    static let corpus: [HostileString] = [
        .text("sql-quote", "' OR '1'='1"),
        .text("sql-drop", "1; DROP TABLE ledger.events; --"),
        .text("sql-comment", "admin'--"),
        .text("sql-union", "x' UNION SELECT payload::text FROM ledger.events --"),
        .text("rtl-override", "\u{202E}gnp.exe"),
        .text("zero-width", "a\u{200B}b\u{200D}c\u{FEFF}"),
        .text("emoji-zwj", "🧾👨‍👩‍👧‍👦"),
        .text("combining", "e\u{301}\u{301}\u{301}"),
        .text("overlong-text", String(repeating: "ä", count: 5_000)),
        .text("traversal", "../../etc/passwd"),
        .text("dot-dot", ".."),
        .text("like-wildcards", "%_%"),
        .text("json-breakout", #"","admin":true,"x":""#),
        .text("nul", "a\u{0}b"),
        .text("control", "a\u{1}\u{1F}\u{7F}b"),
        .text("crlf-header", "x\r\nSet-Cookie: uid=admin"),
        HostileString(name: "overlong-utf8", encoded: "%C0%AF..%C0%AF", json: #"\u00c0\u00af"#, rejectInURL: true, rejectInBody: false),
        HostileString(name: "lone-surrogate", encoded: "%ED%A0%80x", json: #"\ud800x"#, rejectInURL: true, rejectInBody: true),
        HostileString(name: "invalid-utf8", encoded: "%FF%FE", json: #"\u00ff\u00fe"#, rejectInURL: true, rejectInBody: false),
        HostileString(name: "broken-percent", encoded: "%ZZ%", json: "%ZZ%", rejectInURL: true, rejectInBody: false),
        HostileString(
            name: "encoded-traversal", encoded: "..%2F..%2Fetc%2Fpasswd", json: #"..\/..\/etc\/passwd"#, rejectInURL: false,
            rejectInBody: false),
        HostileString(
            name: "huge-number", encoded: "99999999999999999999999999", json: "99999999999999999999999999", rejectInURL: false,
            rejectInBody: false)
    ]

    /// Percent-encodes everything but unreserved ASCII (RFC 3986), byte by byte.
    static func percentEncoded(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            let scalar = Unicode.Scalar(byte)
            if (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "-._~".unicodeScalars.contains(scalar)
            {
                out.unicodeScalars.append(scalar)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// The content of a JSON string literal for `value`.
    static func jsonEscaped(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
