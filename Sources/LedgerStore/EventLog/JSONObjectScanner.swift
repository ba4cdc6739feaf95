import Foundation

/// Splits one JSON object into its top-level members, keeping each value's exact text. Import needs the raw text of
/// `data`: re-serialising through Foundation would rewrite numbers (0.10 becomes 0.1, big integers lose digits).
/// Values are checked for shape only here; PostgreSQL's jsonb parser validates them fully on insert.
struct JSONObjectScanner {
    struct Failure: Error { var message: String }

    private let bytes: [UInt8]
    private var index = 0

    static func members(of text: String) throws(Failure) -> [String: String] {
        var scanner = JSONObjectScanner(bytes: Array(text.utf8))
        return try scanner.object()
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func object() throws(Failure) -> [String: String] {
        var members: [String: String] = [:]
        try expect("{")
        if peek() == UInt8(ascii: "}") { index += 1; return try end(members) }
        while true {
            skipSpace()
            guard peek() == UInt8(ascii: "\"") else { throw Failure(message: "expected a member name in quotes") }
            let keyText = try rawValue()
            guard let key = try? JSONDecoder().decode(String.self, from: Data(keyText.utf8)) else {
                throw Failure(message: "a member name is not a valid JSON string")
            }
            try expect(":")
            members[key] = try rawValue()
            skipSpace()
            if peek() == UInt8(ascii: ",") { index += 1; continue }
            try expect("}")
            return try end(members)
        }
    }

    private mutating func end(_ members: [String: String]) throws(Failure) -> [String: String] {
        skipSpace()
        guard index == bytes.count else { throw Failure(message: "unexpected text after the object") }
        return members
    }

    /// The exact text of the next value.
    private mutating func rawValue() throws(Failure) -> String {
        skipSpace()
        let start = index
        guard let first = peek() else { throw Failure(message: "a value is missing") }
        switch first {
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            repeat {
                guard let byte = peek() else { throw Failure(message: "an object or array is not closed") }
                switch byte {
                case UInt8(ascii: "\""): try skipString(); continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                default: break
                }
                index += 1
            } while depth > 0
        default:
            while let byte = peek(), ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                index += 1
            }
            if index == start { throw Failure(message: "a value is missing") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func skipString() throws(Failure) {
        index += 1 // opening quote
        while let byte = peek() {
            index += 1
            if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { return }
        }
        throw Failure(message: "a string is not closed")
    }

    private mutating func expect(_ character: Character) throws(Failure) {
        skipSpace()
        guard peek() == character.asciiValue else { throw Failure(message: "expected '\(character)'") }
        index += 1
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while let byte = peek(), [0x20, 0x09, 0x0A, 0x0D].contains(byte) { index += 1 }
    }
}
