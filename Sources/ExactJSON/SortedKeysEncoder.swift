import Foundation

/// Encodes an `Encodable` value to the bytes `JSONEncoder` makes with `[.sortedKeys, .withoutEscapingSlashes]`, for
/// a fraction of its cost: the API's answers (`JSONResponse`). Profiled on the status reads the cache answers, that
/// encoder was 82% of the handler's time: it checks every value against Date, Data, URL and Decimal with dynamic
/// casts and builds a tree of existential boxes. This one compares metatypes and keeps a tree of plain values.
///
/// It knows what the answers hold: strings, booleans, integers, `Decimal`, nil, and containers. A value holding a
/// `Double`, `Float`, `Date`, `Data` or `URL` is encoded by `JSONEncoder` instead, so that such a value is formatted
/// exactly as before rather than by a second implementation of its rules. Members are sorted by their keys' UTF-8
/// bytes, as `JSONEncoder` sorts them; a key written twice keeps its last value, as there. `SortedKeysEncoderTests`
/// compares the two byte for byte. A value that writes its own JSON (`JSONWritable`) writes it.
package struct SortedKeysEncoder: Sendable {
    package init() {}

    package func encode(_ value: some Encodable) throws -> [UInt8] {
        if let writable = value as? any JSONWritable { return writable.jsonBytes }
        do {
            let node = try Node.of(value, codingPath: [])
            var output: [UInt8] = []
            output.reserveCapacity(256)
            node.write(to: &output)
            return output
        } catch is Unsupported {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return Array(try encoder.encode(value))
        }
    }
}

/// A value `SortedKeysEncoder` leaves to `JSONEncoder`.
private struct Unsupported: Error {}

/// One value of the tree; containers are boxes, so that a container handed out earlier fills the tree in place.
private enum Node {
    case null
    case bool(Bool)
    case signed(Int64)
    case unsigned(UInt64)
    /// A number's text (a `Decimal`'s description, as `JSONEncoder` writes it).
    case number(String)
    case string(String)
    case object(ObjectBox)
    case array(ArrayBox)
    /// Whatever an encoder handed out later writes (`superEncoder`); nothing written is `{}`, as in `JSONEncoder`.
    case slot(Slot)

    static func of<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> Node {
        // Metatypes compared, not dynamic casts: the type is known to be the one named when they are equal.
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Int.self { return .signed(Int64(unsafeBitCast(value, to: Int.self))) }
        if T.self == Int64.self { return .signed(unsafeBitCast(value, to: Int64.self)) }
        if T.self == Int32.self { return .signed(Int64(unsafeBitCast(value, to: Int32.self))) }
        if T.self == Decimal.self { return .number(unsafeBitCast(value, to: Decimal.self).description) }
        if T.self == Double.self || T.self == Float.self || T.self == Date.self || T.self == Data.self || T.self == URL.self {
            throw Unsupported()
        }
        let slot = Slot()
        try value.encode(to: NodeEncoder(slot: slot, codingPath: codingPath))
        return slot.node ?? .object(ObjectBox())
    }

    func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .signed(let integer):
            if integer < 0 { output.append(UInt8(ascii: "-")) }
            JSONOutput.append(digits: integer.magnitude, to: &output)
        case .unsigned(let integer): JSONOutput.append(digits: integer, to: &output)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): JSONOutput.append(string: text, to: &output)
        case .slot(let slot): (slot.node ?? .object(ObjectBox())).write(to: &output)
        case .array(let box):
            output.append(UInt8(ascii: "["))
            for (index, element) in box.elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let box):
            output.append(UInt8(ascii: "{"))
            for (index, member) in box.sortedMembers().enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONOutput.append(string: member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.node.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }
}

private final class Slot {
    var node: Node?
}

private final class ObjectBox {
    var members: [(key: String, node: Node)] = []

    /// By the keys' UTF-8 bytes; of a key written twice, the last value. An insertion sort in place: an answer's
    /// objects have a few members each, and this is most of what writing one costs after its strings.
    func sortedMembers() -> [(key: String, node: Node)] {
        var sorted = members
        var index = 1
        while index < sorted.count {
            let member = sorted[index]
            var slot = index
            while slot > 0, member.key.utf8.lexicographicallyPrecedes(sorted[slot - 1].key.utf8) {
                sorted[slot] = sorted[slot - 1]
                slot -= 1
            }
            if slot > 0, sorted[slot - 1].key == member.key {
                // Written again: the later value takes the earlier one's place.
                sorted.remove(at: slot)
                sorted[slot - 1] = member
            } else {
                sorted[slot] = member
                index += 1
            }
        }
        return sorted
    }
}

private final class ArrayBox {
    var elements: [Node] = []
}

private struct NodeEncoder: Encoder {
    let slot: Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // A second request for a keyed container adds to the first, as in JSONEncoder.
        if case .object(let box) = slot.node { return KeyedEncodingContainer(KeyedNodeContainer(box: box, codingPath: codingPath)) }
        let box = ObjectBox()
        slot.node = .object(box)
        return KeyedEncodingContainer(KeyedNodeContainer(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array(let box) = slot.node { return UnkeyedNodeContainer(box: box, codingPath: codingPath) }
        let box = ArrayBox()
        slot.node = .array(box)
        return UnkeyedNodeContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleNodeContainer(slot: slot, codingPath: codingPath) }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: ObjectBox
    let codingPath: [any CodingKey]

    private func add(_ node: Node, _ key: Key) { box.members.append((key.stringValue, node)) }

    mutating func encodeNil(forKey key: Key) throws { add(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { add(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { add(.string(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { add(.signed(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { add(.signed(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { add(.signed(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { add(.signed(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { add(.signed(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { add(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { add(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { add(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { add(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { add(.unsigned(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { throw Unsupported() }
    mutating func encode(_ value: Float, forKey key: Key) throws { throw Unsupported() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        add(try Node.of(value, codingPath: codingPath + [key]), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBox()
        add(.object(nested), key)
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(box: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ArrayBox()
        add(.array(nested), key)
        return UnkeyedNodeContainer(box: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(name: "super") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(name: key.stringValue) }

    private func superEncoder(name: String) -> any Encoder {
        let slot = Slot()
        box.members.append((name, .slot(slot)))
        return NodeEncoder(slot: slot, codingPath: codingPath)
    }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let box: ArrayBox
    let codingPath: [any CodingKey]
    var count: Int { box.elements.count }

    private func add(_ node: Node) { box.elements.append(node) }

    mutating func encodeNil() throws { add(.null) }
    mutating func encode(_ value: Bool) throws { add(.bool(value)) }
    mutating func encode(_ value: String) throws { add(.string(value)) }
    mutating func encode(_ value: Int) throws { add(.signed(Int64(value))) }
    mutating func encode(_ value: Int8) throws { add(.signed(Int64(value))) }
    mutating func encode(_ value: Int16) throws { add(.signed(Int64(value))) }
    mutating func encode(_ value: Int32) throws { add(.signed(Int64(value))) }
    mutating func encode(_ value: Int64) throws { add(.signed(value)) }
    mutating func encode(_ value: UInt) throws { add(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { add(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { add(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { add(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { add(.unsigned(value)) }
    mutating func encode(_ value: Double) throws { throw Unsupported() }
    mutating func encode(_ value: Float) throws { throw Unsupported() }
    mutating func encode<T: Encodable>(_ value: T) throws { add(try Node.of(value, codingPath: codingPath)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBox()
        add(.object(nested))
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(box: nested, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ArrayBox()
        add(.array(nested))
        return UnkeyedNodeContainer(box: nested, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
        let slot = Slot()
        add(.slot(slot))
        return NodeEncoder(slot: slot, codingPath: codingPath)
    }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { slot.node = .null }
    mutating func encode(_ value: Bool) throws { slot.node = .bool(value) }
    mutating func encode(_ value: String) throws { slot.node = .string(value) }
    mutating func encode(_ value: Int) throws { slot.node = .signed(Int64(value)) }
    mutating func encode(_ value: Int8) throws { slot.node = .signed(Int64(value)) }
    mutating func encode(_ value: Int16) throws { slot.node = .signed(Int64(value)) }
    mutating func encode(_ value: Int32) throws { slot.node = .signed(Int64(value)) }
    mutating func encode(_ value: Int64) throws { slot.node = .signed(value) }
    mutating func encode(_ value: UInt) throws { slot.node = .unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { slot.node = .unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { slot.node = .unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { slot.node = .unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { slot.node = .unsigned(value) }
    mutating func encode(_ value: Double) throws { throw Unsupported() }
    mutating func encode(_ value: Float) throws { throw Unsupported() }
    mutating func encode<T: Encodable>(_ value: T) throws { slot.node = try Node.of(value, codingPath: codingPath) }
}
