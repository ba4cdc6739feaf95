/// A value that writes its own JSON: the bytes `SortedKeysEncoder` (and so `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes`) writes for its `Encodable` conformance, without `Encodable`'s containers and the tree
/// they fill. The status answers are read thousands of times a second, and through `Encodable` their encoding was 70%
/// of a cached `GET /v1/users/{id}`'s handler (a keyed container's metadata looked up and a node allocated per value;
/// Benchmarks/README.md). `SortedKeysEncoder` takes this path whenever the value it is given conforms.
///
/// A conforming type writes its members in the order of their keys' UTF-8 bytes (checked as it writes in debug
/// builds), with the keys of its `CodingKeys`, and every member `Encodable` writes; its tests compare the two
/// encodings byte for byte. Absent values are `Nullable` members (written as `null`), never an `Optional` one, which
/// `Encodable` would leave out.
@usableFromInline package protocol JSONWritable: Encodable {
    func write(to json: inout JSONOutput)
}

extension JSONWritable {
    /// The value's JSON.
    package var jsonBytes: [UInt8] {
        var json = JSONOutput()
        write(to: &json)
        return json.bytes
    }
}

/// JSON being written: values, and objects and arrays opened and closed around them.
@usableFromInline package struct JSONOutput {
    @usableFromInline package internal(set) var bytes: [UInt8] = []
    /// Whether the next value or member follows another in its container (a comma first).
    @usableFromInline var follows = false
    #if DEBUG
        /// The last key of each open object, to check that members come in order.
        @usableFromInline var lastKeys: [String?] = []
    #endif

    package init() { bytes.reserveCapacity(512) }

    // The writing functions are inlinable so that callers in other modules get them specialized for their keys and
    // values: unspecialized, each call looked up generic metadata (`Nullable<String>`, arrays of bodies) at run time.

    @inlinable package mutating func string(_ text: String) {
        separate()
        Self.append(string: text, to: &bytes)
        follows = true
    }

    @inlinable package mutating func bool(_ flag: Bool) {
        separate()
        bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        follows = true
    }

    @inlinable package mutating func integer(_ value: Int64) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        Self.append(digits: value.magnitude, to: &bytes)
        follows = true
    }

    @inlinable package mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        follows = true
    }

    /// An object whose members `members` writes, each with `member(_:_:)`, in the order of their keys.
    @inlinable package mutating func object(_ members: (inout JSONOutput) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        follows = false
        #if DEBUG
            lastKeys.append(nil)
        #endif
        members(&self)
        #if DEBUG
            lastKeys.removeLast()
        #endif
        bytes.append(UInt8(ascii: "}"))
        follows = true
    }

    /// A member of the object being written; its key must follow the previous member's.
    @inlinable package mutating func member(_ key: some CodingKey, _ value: some JSONWritable) {
        let name = key.stringValue
        #if DEBUG
            if let previous = lastKeys[lastKeys.count - 1] {
                precondition(previous.utf8.lexicographicallyPrecedes(name.utf8), "JSON member \(name) written after \(previous)")
            }
            lastKeys[lastKeys.count - 1] = name
        #endif
        separate()
        Self.append(string: name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        follows = false
        value.write(to: &self)
        follows = true
    }

    @inlinable package mutating func array<Elements: Sequence>(_ elements: Elements) where Elements.Element: JSONWritable {
        separate()
        bytes.append(UInt8(ascii: "["))
        follows = false
        for element in elements { element.write(to: &self) }
        bytes.append(UInt8(ascii: "]"))
        follows = true
    }

    @usableFromInline mutating func separate() {
        if follows { bytes.append(UInt8(ascii: ",")) }
    }

    @usableFromInline static func append(digits value: UInt64, to output: inout [UInt8]) {
        guard value >= 10 else { return output.append(UInt8(ascii: "0") + UInt8(value)) }
        append(digits: value / 10, to: &output)
        output.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    static let hexDigits = Array("0123456789abcdef".utf8)

    /// `text` quoted, escaped as `JSONEncoder` escapes (slashes not, as `.withoutEscapingSlashes` asks); runs that
    /// need no escape are copied in one piece.
    @usableFromInline static func append(string text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var run = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                run = index + 1
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
                case UInt8(ascii: "\n"): output.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): output.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): output.append(UInt8(ascii: "t"))
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                default:
                    output.append(contentsOf: "u00".utf8)
                    output.append(hexDigits[Int(byte >> 4)])
                    output.append(hexDigits[Int(byte & 0x0F)])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<bytes.count]))
        }
        output.append(UInt8(ascii: "\""))
    }
}

extension String: JSONWritable {
    @inlinable package func write(to json: inout JSONOutput) { json.string(self) }
}

extension Bool: JSONWritable {
    @inlinable package func write(to json: inout JSONOutput) { json.bool(self) }
}

extension Int: JSONWritable {
    @inlinable package func write(to json: inout JSONOutput) { json.integer(Int64(self)) }
}

extension Int64: JSONWritable {
    @inlinable package func write(to json: inout JSONOutput) { json.integer(self) }
}

extension Array: JSONWritable where Element: JSONWritable {
    @inlinable package func write(to json: inout JSONOutput) { json.array(self) }
}
