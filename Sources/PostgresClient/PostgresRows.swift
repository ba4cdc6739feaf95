import Foundation

/// The rows of one result, copied out of libpq so the `PGresult` is cleared at once and the rows may cross
/// threads freely. Cells are slices of one byte buffer (binary format unless the query asked for text).
public struct PostgresRows: Sendable, RandomAccessCollection {
    public struct Column: Sendable {
        public var name: String
        public var type: PostgresType
    }

    public let columns: [Column]
    /// Rows changed by an INSERT / UPDATE / DELETE / COPY (`PQcmdTuples`), 0 otherwise.
    public let affectedRows: Int
    let storage: [UInt8]
    /// (offset, length) per cell, row-major; length -1 is NULL.
    let cells: [(offset: Int, length: Int)]
    let rowCount: Int

    init(columns: [Column], affectedRows: Int, storage: [UInt8], cells: [(offset: Int, length: Int)], rowCount: Int) {
        self.columns = columns
        self.affectedRows = affectedRows
        self.storage = storage
        self.cells = cells
        self.rowCount = rowCount
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { rowCount }
    public subscript(position: Int) -> PostgresRow { PostgresRow(rows: self, index: position) }

    func columnIndex(named name: String) -> Int? { columns.firstIndex { $0.name == name } }
}

/// One row; decode its cells by index or column name.
public struct PostgresRow: Sendable {
    let rows: PostgresRows
    let index: Int

    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, at column: Int) throws(PostgresError) -> T {
        guard column >= 0, column < rows.columns.count else {
            throw .decoding(column: "#\(column)", message: "the result has \(rows.columns.count) columns")
        }
        let cell = rows.cells[index * rows.columns.count + column]
        let info = rows.columns[column]
        let bytes: ArraySlice<UInt8>? = cell.length < 0 ? nil : rows.storage[cell.offset..<cell.offset + cell.length]
        do {
            return try T(postgresBytes: bytes, type: info.type)
        } catch {
            throw .decoding(column: info.name, message: error.message)
        }
    }

    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, column name: String) throws(PostgresError) -> T {
        guard let column = rows.columnIndex(named: name) else {
            throw .decoding(column: name, message: "no such column in the result")
        }
        return try decode(type, at: column)
    }

    public func isNull(at column: Int) -> Bool { rows.cells[index * rows.columns.count + column].length < 0 }
}

public struct PostgresDecodingError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// A Swift value that can be read from a result cell (binary format, or text for `numeric`).
public protocol PostgresDecodable: Sendable {
    /// `bytes` is nil for SQL NULL.
    init(postgresBytes bytes: ArraySlice<UInt8>?, type: PostgresType) throws(PostgresDecodingError)
}

extension PostgresDecodable {
    static func nonNull(_ bytes: ArraySlice<UInt8>?) throws(PostgresDecodingError) -> ArraySlice<UInt8> {
        guard let bytes else { throw PostgresDecodingError("unexpected NULL for \(Self.self); decode an Optional") }
        return bytes
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public init(postgresBytes bytes: ArraySlice<UInt8>?, type: PostgresType) throws(PostgresDecodingError) {
        guard let bytes else { self = .none; return }
        self = .some(try Wrapped(postgresBytes: bytes, type: type))
    }
}

extension Int64: PostgresDecodable {
    public init(postgresBytes bytes: ArraySlice<UInt8>?, type: PostgresType) throws(PostgresDecodingError) {
        let bytes = try Self.nonNull(bytes)
        switch type {
        case .int8: self = BigEndian.integer(Int64.self, from: bytes) ?? 0
        case .int4: self = Int64(BigEndian.integer(Int32.self, from: bytes) ?? 0)
        case .int2: self = Int64(BigEndian.integer(Int16.self, from: bytes) ?? 0)
        case .numeric, .text, .varchar:
            guard let value = Int64(String(decoding: bytes, as: UTF8.self)) else {
                throw PostgresDecodingError("not an integer: \(String(decoding: bytes, as: UTF8.self))")
            }
            self = value
        default: throw PostgresDecodingError("cannot read type OID \(type.rawValue) as Int64")
        }
    }
}

extension Int: PostgresDecodable {
    public init(postgresBytes bytes: ArraySlice<UInt8>?, type: PostgresType) throws(PostgresDecodingError) {
        self = Int(try Int64(postgresBytes: bytes, type: type))
    }
}

extension Int32: PostgresDecodable {
    public init(postgresBytes bytes: ArraySlice<UInt8>?, type: PostgresType) throws(PostgresDecodingError) {
        let wide = try Int64(postgresBytes: bytes, type: type)
        guard let value = Int32(exactly: wide) else { throw PostgresDecodingError("\(wide) does not fit Int32") }
        self = value
    }
}

extension UInt64: PostgresDecodable {
    /// `xid8` (transaction ids) and non-negative `int8`.
    public init(postgresBytes bytes: ArraySlice<UInt8>?, type: PostgresType) throws(PostgresDecodingError) {
        let bytes = try Self.nonNull(bytes)
        switch type {
        case .xid8: self = BigEndian.integer(UInt64.self, from: bytes) ?? 0
        case .int8:
            let value = BigEndian.integer(Int64.self, from: bytes) ?? 0
            guard value >= 0 else { throw PostgresDecodingError("negative value \(value) for UInt64") }
            self = UInt64(value)
        default: throw PostgresDecodingError("cannot read type OID \(type.rawValue) as UInt64")
        }
    }
}

extension Bool: PostgresDecodable {
    public init(postgresBytes bytes: ArraySlice<UInt8>?, type: PostgresType) throws(PostgresDecodingError) {
        let bytes = try Self.nonNull(bytes)
        guard type == .bool, bytes.count == 1 else { throw PostgresDecodingError("cannot read type OID \(type.rawValue) as Bool") }
        self = bytes.first != 0
    }
}

extension String: PostgresDecodable {
    /// text-like types; `jsonb` without its version byte; `json` as is.
    public init(postgresBytes bytes: ArraySlice<UInt8>?, type: PostgresType) throws(PostgresDecodingError) {
        let bytes = try Self.nonNull(bytes)
        switch type {
        case .jsonb:
            guard bytes.first == 1 else { throw PostgresDecodingError("unknown jsonb format version") }
            self = String(decoding: bytes.dropFirst(), as: UTF8.self)
        case .uuid:
            self = (try UUID(postgresBytes: bytes, type: type)).uuidString.lowercased()
        case .int8, .int4, .int2, .bytea, .bool, .timestamptz, .xid8:
            throw PostgresDecodingError("cannot read type OID \(type.rawValue) as String; cast it to text in SQL")
        default:
            self = String(decoding: bytes, as: UTF8.self)
        }
    }
}

extension Array: PostgresDecodable where Element == UInt8 {
    public init(postgresBytes bytes: ArraySlice<UInt8>?, type: PostgresType) throws(PostgresDecodingError) {
        let bytes = try Self.nonNull(bytes)
        guard type == .bytea else { throw PostgresDecodingError("cannot read type OID \(type.rawValue) as bytes") }
        self = Array(bytes)
    }
}

extension PostgresTimestamp: PostgresDecodable {
    public init(postgresBytes bytes: ArraySlice<UInt8>?, type: PostgresType) throws(PostgresDecodingError) {
        let bytes = try Self.nonNull(bytes)
        guard type == .timestamptz, let micros = BigEndian.integer(Int64.self, from: bytes) else {
            throw PostgresDecodingError("cannot read type OID \(type.rawValue) as a timestamp")
        }
        self.init(microsecondsSinceEpoch: micros + Self.postgresEpochOffset)
    }
}

extension Decimal: PostgresDecodable {
    /// `numeric` arrives as text (the client asks for it in text; see `PostgresConnection.query`).
    public init(postgresBytes bytes: ArraySlice<UInt8>?, type: PostgresType) throws(PostgresDecodingError) {
        let bytes = try Self.nonNull(bytes)
        switch type {
        case .int8, .int4, .int2: self = Decimal(try Int64(postgresBytes: bytes, type: type))
        default:
            guard let value = Decimal(string: String(decoding: bytes, as: UTF8.self), locale: Locale(identifier: "en_US_POSIX")) else {
                throw PostgresDecodingError("cannot read type OID \(type.rawValue) as Decimal; cast numeric to text in SQL")
            }
            self = value
        }
    }
}

extension UUID: PostgresDecodable {
    public init(postgresBytes bytes: ArraySlice<UInt8>?, type: PostgresType) throws(PostgresDecodingError) {
        let b = Array(try Self.nonNull(bytes))
        guard type == .uuid, b.count == 16 else { throw PostgresDecodingError("cannot read type OID \(type.rawValue) as UUID") }
        self = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}

extension TextArray: PostgresDecodable {
    /// A one-dimensional `text[]` without NULL elements, in binary format (`ArrayEncoding`'s layout).
    public init(postgresBytes bytes: ArraySlice<UInt8>?, type: PostgresType) throws(PostgresDecodingError) {
        let bytes = try Self.nonNull(bytes)
        guard type == .textArray else { throw PostgresDecodingError("cannot read type OID \(type.rawValue) as text[]") }
        var reader = BigEndianReader(bytes)
        let dimensions = try reader.int32()
        _ = try reader.int32()  // has-null flag: NULL elements are refused one by one below
        _ = try reader.int32()  // element type
        guard dimensions <= 1 else { throw PostgresDecodingError("a \(dimensions)-dimensional array is not a text[] list") }
        guard dimensions == 1 else { self.init([]); return }
        let count = try reader.int32()
        _ = try reader.int32()  // lower bound
        guard count >= 0 else { throw PostgresDecodingError("negative array length") }
        var elements: [String] = []
        elements.reserveCapacity(Int(count))
        for _ in 0..<count {
            let length = try reader.int32()
            guard length >= 0 else { throw PostgresDecodingError("NULL element in a text[] read as [String]") }
            elements.append(String(decoding: try reader.bytes(Int(length)), as: UTF8.self))
        }
        self.init(elements)
    }
}

/// Reads big-endian fields off the front of a binary value, refusing to read past its end.
struct BigEndianReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    mutating func int32() throws(PostgresDecodingError) -> Int32 {
        let field = try self.bytes(4)
        return BigEndian.integer(Int32.self, from: field) ?? 0
    }

    mutating func bytes(_ count: Int) throws(PostgresDecodingError) -> ArraySlice<UInt8> {
        guard count <= bytes.count else { throw PostgresDecodingError("a binary value ends early") }
        let field = bytes.prefix(count)
        bytes = bytes.dropFirst(count)
        return field
    }
}

/// Decodes a row's cells one after another, for a result read in column order.
public struct PostgresRowCursor {
    public let row: PostgresRow
    public private(set) var column: Int

    public init(_ row: PostgresRow, from column: Int = 0) {
        self.row = row
        self.column = column
    }

    public mutating func next<T: PostgresDecodable>(_ type: T.Type = T.self) throws(PostgresError) -> T {
        defer { column += 1 }
        return try row.decode(type, at: column)
    }
}
