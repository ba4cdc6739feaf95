import Foundation

/// A JSON document kept exactly as received.
///
/// Why not `JSONSerialization` / `[String: Any]`: numbers must survive verbatim (Xcode writes fractional epoch
/// milliseconds such as `1697679936049.7297`, prices are 64-bit integers that a `Double` would round), member order is
/// kept so the report shows the payload as Apple sent it, and the type is `Sendable`.
public indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's literal text, already validated against the JSON grammar.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in document order. Duplicate keys are kept; lookups return the last one, as most parsers do.
    case object([JSONMember])

    /// The member named `key` (the last one if repeated), or nil if absent or if this is not an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// Whether this is an object.
    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// The keys of an object, in document order.
    public var keys: [String] {
        guard case .object(let members) = self else { return [] }
        return members.map(\.key)
    }
}

/// One `"key": value` pair of a JSON object.
public struct JSONMember: Sendable, Hashable {
    public var key: String
    public var value: JSONValue

    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}

extension JSONValue: Encodable {
    /// Encodes through `Encoder` for callers that embed payloads in their own `Codable` types (e.g. the HTTP layer).
    /// Numbers go through `Decimal`, which holds up to 38 significant digits, so App Store values stay exact.
    /// `JSONWriter` is the byte-exact alternative.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let literal):
            var container = encoder.singleValueContainer()
            if let integer = Int64(literal) {
                try container.encode(integer)
            } else if let decimal = Decimal(string: literal, locale: Locale(identifier: "en_US_POSIX")) {
                try container.encode(decimal)
            } else {
                try container.encode(literal)
            }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let members):
            var container = encoder.container(keyedBy: MemberKey.self)
            for member in members { try container.encode(member.value, forKey: MemberKey(member.key)) }
        }
    }

    private struct MemberKey: CodingKey {
        let stringValue: String
        init(_ string: String) { self.stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}
