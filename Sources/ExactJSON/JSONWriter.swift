/// Serializes `JSONValue` compactly and byte-exactly: numbers as their original literals, members in order.
public enum JSONWriter {
    public static func string(_ value: JSONValue) -> String {
        var output = ""
        write(value, to: &output)
        return output
    }

    static func write(_ value: JSONValue, to output: inout String) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let literal): output += literal
        case .string(let text): writeString(text, to: &output)
        case .array(let values):
            output += "["
            for (position, element) in values.enumerated() {
                if position > 0 { output += "," }
                write(element, to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (position, member) in members.enumerated() {
                if position > 0 { output += "," }
                writeString(member.key, to: &output)
                output += ":"
                write(member.value, to: &output)
            }
            output += "}"
        }
    }

    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var output = ""
        writeString(text, to: &output)
        return output
    }

    /// Copies runs of bytes that need no escape in one piece: payloads are kilobytes of plain text, and appending
    /// them scalar by scalar was most of the cost of writing one.
    static func writeString(_ text: String, to output: inout String) {
        output += "\""
        let utf8 = text.utf8
        var run = utf8.startIndex
        var index = run
        while index != utf8.endIndex {
            let byte = utf8[index]
            var escape: String?
            var length = 1
            switch byte {
            case UInt8(ascii: "\""): escape = "\\\""
            case UInt8(ascii: "\\"): escape = "\\\\"
            case UInt8(ascii: "\n"): escape = "\\n"
            case UInt8(ascii: "\r"): escape = "\\r"
            case UInt8(ascii: "\t"): escape = "\\t"
            case 0x08: escape = "\\b"
            case 0x0C: escape = "\\f"
            case 0x00..<0x20:
                let hex = String(byte, radix: 16)
                escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            case 0xE2:
                // U+2028 and U+2029 (E2 80 A8 / A9): valid in JSON, but not in the JavaScript that may embed it.
                let second = utf8.index(after: index)
                if second != utf8.endIndex, utf8[second] == 0x80 {
                    let third = utf8.index(after: second)
                    if third != utf8.endIndex, utf8[third] == 0xA8 || utf8[third] == 0xA9 {
                        escape = utf8[third] == 0xA8 ? "\\u2028" : "\\u2029"
                        length = 3
                    }
                }
            default: break
            }
            guard let escape else {
                utf8.formIndex(after: &index)
                continue
            }
            output += text[run..<index]
            output += escape
            index = utf8.index(index, offsetBy: length)
            run = index
        }
        output += text[run..<utf8.endIndex]
        output += "\""
    }
}
