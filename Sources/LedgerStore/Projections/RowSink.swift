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
