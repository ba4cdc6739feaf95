import LedgerDomain
import PostgresClient
import UTCTime

/// One typed table of a read model (`schema/007_read_models.sql`): its columns in order, and the columns that key
/// a row. A row is one text cell per column, in PostgreSQL's text form (nil is NULL), so the same row goes into a
/// live batch's upsert and into a rebuild's COPY.
package struct ReadModelTable: Sendable {
    package struct Column: Sendable {
        package let name: String
        package let type: String
        /// On an upsert, keep the greater of the stored and the new value (positions: events of one key may be
        /// folded out of position order when they lie in different streams).
        package let keepsGreatest: Bool

        package init(_ name: String, _ type: String, keepsGreatest: Bool = false) {
            self.name = name
            self.type = type
            self.keepsGreatest = keepsGreatest
        }
    }

    /// The table's name within its schema (`ledger` live, `ledger_rebuild` / `ledger_check` for rebuilds).
    package let name: String
    package let columns: [Column]
    package let key: [String]

    package init(name: String, columns: [Column], key: [String]) {
        self.name = name
        self.columns = columns
        self.key = key
    }

    package func qualified(_ schema: String) -> String { schema + "." + name }

    /// Whether rows keep the reducer's whole state in `fold_state` (NULL after a rebuild until an event touches it).
    package var hasFoldState: Bool { columns.contains { $0.name == "fold_state" } }

    /// Writes `rows` with one statement: each column as one `text[]` parameter, unnested, cast to the column's type,
    /// inserted or updated in place.
    package func upsert(_ rows: [[String?]], schema: String, on connection: PostgresConnection) throws {
        guard !rows.isEmpty else { return }
        let names = columns.map(\.name).joined(separator: ", ")
        let casts = columns.map { "r.\($0.name)::\($0.type)" }.joined(separator: ", ")
        let arrays = columns.indices.map { "$\($0 + 1)::text[]" }.joined(separator: ", ")
        let updates = columns.filter { !key.contains($0.name) }.map { column in
            column.keepsGreatest
                ? "\(column.name) = GREATEST(t.\(column.name), EXCLUDED.\(column.name))" : "\(column.name) = EXCLUDED.\(column.name)"
        }.joined(separator: ", ")
        let sql = """
            INSERT INTO \(qualified(schema)) AS t (\(names))
            SELECT \(casts) FROM unnest(\(arrays)) AS r(\(names))
            ON CONFLICT (\(key.joined(separator: ", "))) DO UPDATE SET \(updates)
            """
        let bindings = columns.indices.map { index in NullableTextArray(rows.map { $0[index] }).postgresValue }
        try connection.query(prepared: PostgresQuery(unsafeSQL: sql, bindings: bindings))
    }

    /// `COPY … FROM STDIN WITH (FREEZE)` of this table's columns, for `TableOutput`'s rows: the caller has created or
    /// emptied the table in the same transaction (`FoldPass`).
    package func copyStatement(schema: String) -> String {
        "COPY \(qualified(schema)) (\(columns.map(\.name).joined(separator: ", "))) FROM STDIN WITH (FREEZE)"
    }
}

/// Text cells of the values read models store.
package enum Cell {
    /// A `text[]` literal: every element quoted, `"` and `\` escaped within.
    package static func textArray(_ values: [String]) -> String {
        "{"
            + values.map { value in
                var quoted = "\""
                for character in value {
                    if character == "\"" || character == "\\" { quoted.append("\\") }
                    quoted.append(character)
                }
                return quoted + "\""
            }.joined(separator: ",") + "}"
    }

    /// A stored text read back with `parse`, NULL as nil; text this version never writes is an error that names
    /// the column (a row of a newer version).
    package static func parse<T>(_ text: String?, _ column: String, _ parse: (String) -> T?) throws(PostgresError) -> T? {
        guard let text else { return nil }
        guard let value = parse(text) else {
            throw .decoding(column: column, message: "`\(text)` is not a value this version writes")
        }
        return value
    }
}
