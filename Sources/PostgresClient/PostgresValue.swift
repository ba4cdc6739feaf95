import Foundation

/// Type OIDs of the types the client binds and decodes (from `pg_type`).
public struct PostgresType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let bool = PostgresType(rawValue: 16)
    public static let bytea = PostgresType(rawValue: 17)
    public static let int8 = PostgresType(rawValue: 20)
    public static let int2 = PostgresType(rawValue: 21)
    public static let int4 = PostgresType(rawValue: 23)
    public static let text = PostgresType(rawValue: 25)
    public static let json = PostgresType(rawValue: 114)
    public static let varchar = PostgresType(rawValue: 1043)
    public static let name = PostgresType(rawValue: 19)
    public static let timestamptz = PostgresType(rawValue: 1184)
    public static let numeric = PostgresType(rawValue: 1700)
    public static let uuid = PostgresType(rawValue: 2950)
    public static let jsonb = PostgresType(rawValue: 3802)
    public static let xid8 = PostgresType(rawValue: 5069)
    public static let textArray = PostgresType(rawValue: 1009)
    public static let int8Array = PostgresType(rawValue: 1016)
    public static let byteaArray = PostgresType(rawValue: 1001)
}

/// One bound parameter: its type OID, wire format and bytes (nil = SQL NULL).
///
/// Parameters travel in binary with an explicit OID so the server never guesses a type and no value is ever
/// spliced into SQL text. `numeric` is the one type sent as text (its binary form buys nothing here).
public struct PostgresValue: Sendable, Equatable {
    public var type: PostgresType
    public var isBinary: Bool
    public var bytes: [UInt8]?

    public init(type: PostgresType, isBinary: Bool = true, bytes: [UInt8]?) {
        self.type = type
        self.isBinary = isBinary
        self.bytes = bytes
    }

    public static func null(_ type: PostgresType = .text) -> PostgresValue { PostgresValue(type: type, bytes: nil) }
}

/// A Swift value that can be bound as a query parameter.
public protocol PostgresEncodable: Sendable {
    var postgresValue: PostgresValue { get }
    /// The OID a NULL of this type is bound with (text unless the type says otherwise). Times and arrays say: from
    /// text, `$1::timestamptz` or `$1::text[]` would call a STABLE input function, which Citus refuses in an UPDATE's
    /// COALESCE or CASE (Deploy/SCALE-OUT.md).
    static var nullType: PostgresType { get }
}

extension Int64: PostgresEncodable {
    public var postgresValue: PostgresValue { PostgresValue(type: .int8, bytes: BigEndian.bytes(of: self)) }
}
extension Int32: PostgresEncodable {
    public var postgresValue: PostgresValue { PostgresValue(type: .int4, bytes: BigEndian.bytes(of: self)) }
}
extension Int16: PostgresEncodable {
    public var postgresValue: PostgresValue { PostgresValue(type: .int2, bytes: BigEndian.bytes(of: self)) }
}
extension Int: PostgresEncodable {
    public var postgresValue: PostgresValue { Int64(self).postgresValue }
}
extension Bool: PostgresEncodable {
    public var postgresValue: PostgresValue { PostgresValue(type: .bool, bytes: [self ? 1 : 0]) }
}
extension String: PostgresEncodable {
    public var postgresValue: PostgresValue { PostgresValue(type: .text, bytes: Array(utf8)) }
}
extension Array: PostgresEncodable where Element == UInt8 {
    public var postgresValue: PostgresValue { PostgresValue(type: .bytea, bytes: self) }
}
extension Decimal: PostgresEncodable {
    public var postgresValue: PostgresValue {
        PostgresValue(type: .numeric, isBinary: false, bytes: Array(description.utf8))
    }
}
extension UUID: PostgresEncodable {
    public var postgresValue: PostgresValue {
        let u = uuid
        return PostgresValue(
            type: .uuid,
            bytes: [
                u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7,
                u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15
            ])
    }
}
extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public var postgresValue: PostgresValue {
        switch self {
        case .some(let value): value.postgresValue
        case .none: PostgresValue(type: Wrapped.self.nullType, bytes: nil)
        }
    }
}

extension PostgresEncodable {
    public static var nullType: PostgresType { .text }
}

/// JSON text bound as `jsonb` (binary format: version byte 1, then the text).
public struct JSONB: PostgresEncodable, Equatable {
    public var text: String
    public init(_ text: String) { self.text = text }
    public var postgresValue: PostgresValue { PostgresValue(type: .jsonb, bytes: [1] + Array(text.utf8)) }
}

/// A `text[]`, for `= ANY($1)` lookups.
public struct TextArray: PostgresEncodable {
    public static var nullType: PostgresType { .textArray }
    public var elements: [String]
    public init(_ elements: [String]) { self.elements = elements }
    public var postgresValue: PostgresValue {
        ArrayEncoding.encode(elementType: .text, elements: elements.map { Array($0.utf8) }, arrayType: .textArray)
    }
}

/// A `text[]` whose elements may be NULL.
public struct NullableTextArray: PostgresEncodable {
    public static var nullType: PostgresType { .textArray }
    public var elements: [String?]
    public init(_ elements: [String?]) { self.elements = elements }
    public var postgresValue: PostgresValue {
        ArrayEncoding.encode(elementType: .text, elements: elements.map { $0.map { Array($0.utf8) } }, arrayType: .textArray)
    }
}

/// A `bytea[]`.
public struct ByteaArray: PostgresEncodable {
    public static var nullType: PostgresType { .byteaArray }
    public var elements: [[UInt8]]
    public init(_ elements: [[UInt8]]) { self.elements = elements }
    public var postgresValue: PostgresValue {
        ArrayEncoding.encode(elementType: .bytea, elements: elements, arrayType: .byteaArray)
    }
}

/// An `int8[]`.
public struct Int64Array: PostgresEncodable {
    public static var nullType: PostgresType { .int8Array }
    public var elements: [Int64]
    public init(_ elements: [Int64]) { self.elements = elements }
    public var postgresValue: PostgresValue {
        ArrayEncoding.encode(elementType: .int8, elements: elements.map { BigEndian.bytes(of: $0) }, arrayType: .int8Array)
    }
}

/// An `int8[]` whose elements may be NULL.
public struct NullableInt64Array: PostgresEncodable {
    public static var nullType: PostgresType { .int8Array }
    public var elements: [Int64?]
    public init(_ elements: [Int64?]) { self.elements = elements }
    public var postgresValue: PostgresValue {
        ArrayEncoding.encode(elementType: .int8, elements: elements.map { $0.map { BigEndian.bytes(of: $0) } }, arrayType: .int8Array)
    }
}

enum ArrayEncoding {
    /// One-dimensional binary array: ndim, has-null flag, element OID, length, lower bound, then each element.
    /// A nil element is NULL (length -1).
    static func encode(elementType: PostgresType, elements: [[UInt8]?], arrayType: PostgresType) -> PostgresValue {
        var bytes: [UInt8] = []
        bytes += BigEndian.bytes(of: Int32(1))
        bytes += BigEndian.bytes(of: Int32(elements.contains { $0 == nil } ? 1 : 0))
        bytes += BigEndian.bytes(of: elementType.rawValue)
        bytes += BigEndian.bytes(of: Int32(elements.count))
        bytes += BigEndian.bytes(of: Int32(1))
        for element in elements {
            guard let element else {
                bytes += BigEndian.bytes(of: Int32(-1))
                continue
            }
            bytes += BigEndian.bytes(of: Int32(element.count))
            bytes += element
        }
        return PostgresValue(type: arrayType, bytes: bytes)
    }
}

/// Network byte order helpers for the binary wire format.
public enum BigEndian {
    public static func bytes<T: FixedWidthInteger>(of value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    public static func integer<T: FixedWidthInteger>(_ type: T.Type, from bytes: some Collection<UInt8>) -> T? {
        guard bytes.count == MemoryLayout<T>.size else { return nil }
        return bytes.reduce(T.zero) { ($0 << 8) | T(truncatingIfNeeded: $1) }
    }
}
