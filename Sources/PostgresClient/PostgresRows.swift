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
        let bytes: ArraySlice<UInt8>? = cell.length < 0 ? nil : rows.storage[cell.offset ..< cell.offset + cell.length]
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
