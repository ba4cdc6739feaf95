import UTCTime

/// Where a read model writes its rows (`ReadModel.write`), cell by cell in column order, each value in PostgreSQL's
/// text form: straight into a rebuild's COPY (`TableOutput`), or as text cells for a live batch's upsert
/// (`TextRows`). One definition of a row serves both, and a rebuild makes no string per cell on the way.
package protocol RowSink {
    /// Starts a row of the model's table `table` (its index in `tables`).
    mutating func begin(table: Int)
    mutating func text(_ value: String?)
    mutating func instant(_ value: Instant?)
    mutating func bool(_ value: Bool?)
    mutating func integer(_ value: Int64?)
    /// A `text[]`.
    mutating func textArray(_ values: [String])
    /// Ends the row begun last.
    mutating func end() throws
}

extension RowSink {
    package mutating func integer(_ value: Int?) { integer(value.map(Int64.init)) }
}

/// A model's rows as text cells, table by table (nil is NULL): what an upsert binds.
package struct TextRows: RowSink {
    package private(set) var tables: [[[String?]]]
    private let columns: [Int]
    private var table = 0
    private var row: [String?] = []

    package init(_ tables: [ReadModelTable]) {
        self.tables = Array(repeating: [], count: tables.count)
        columns = tables.map(\.columns.count)
    }

    package mutating func begin(table: Int) {
        self.table = table
        row = []
        row.reserveCapacity(columns[table])
    }

    package mutating func text(_ value: String?) { row.append(value) }
    package mutating func instant(_ value: Instant?) { row.append(value?.rfc3339) }
    package mutating func bool(_ value: Bool?) { row.append(value.map { $0 ? "t" : "f" }) }
    package mutating func integer(_ value: Int64?) { row.append(value.map { String($0) }) }
    package mutating func textArray(_ values: [String]) { row.append(Cell.textArray(values)) }

    package mutating func end() {
        precondition(row.count == columns[table], "a row of \(row.count) cells for a table of \(columns[table]) columns")
        tables[table].append(row)
    }
}

/// COPY's text format, cell by cell: tab-separated, `\N` for NULL, backslash escapes.
enum CopyTextCells {
    static func null(into buffer: inout [UInt8]) {
        buffer.append(0x5C)
        buffer.append(UInt8(ascii: "N"))
    }

    static func text(_ value: String, into buffer: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes in
            // Most cells need no escape: copied whole, not byte by byte.
            guard bytes.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else {
                buffer.append(contentsOf: bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case 0x5C: buffer.append(0x5C); buffer.append(0x5C)
                case 0x09: buffer.append(0x5C); buffer.append(UInt8(ascii: "t"))
                case 0x0A: buffer.append(0x5C); buffer.append(UInt8(ascii: "n"))
                case 0x0D: buffer.append(0x5C); buffer.append(UInt8(ascii: "r"))
                default: buffer.append(byte)
                }
            }
        }
    }

    /// Decimal digits, without a string.
    static func integer(_ value: Int64, into buffer: inout [UInt8]) {
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
