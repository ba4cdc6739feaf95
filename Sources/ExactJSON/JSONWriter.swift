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

    static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\u{00}"..."\u{1F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
