import PostgresClient

/// A column of `SecretBox`-sealed values, and how a master key rotation seals them again: every value not under the
/// current key is opened and sealed again, each row only if unchanged since it was read (so a value written meanwhile,
/// under either key, is never overwritten; the next pass sees it).
package struct SealedColumn: Sendable {
    package let table: String
    /// The columns that name one row (text).
    package let key: [String]
    package let column: String

    package init(table: String, key: [String], column: String) {
        self.table = table
        self.key = key
        self.column = column
    }

    /// One pass: how many values it sealed again, and how many it found under another key.
    package func reseal(with box: SecretBox, pool: PostgresPool) async throws -> (resealed: Int, stale: Int) {
        let keys = key.map { "\($0)::text" }.joined(separator: ", ")
        let rows = try await pool.query(PostgresQuery(unsafeSQL: "SELECT \(keys), \(column) FROM \(table) WHERE \(column) IS NOT NULL"))
        let match = key.enumerated().map { "\($1) = $\($0 + 3)" }.joined(separator: " AND ")
        let update = "UPDATE \(table) SET \(column) = $1::bytea WHERE \(column) = $2::bytea AND \(match) RETURNING 1"
        var (resealed, stale) = (0, 0)
        for row in rows {
            let sealed = try row.decode([UInt8].self, at: key.count)
            guard !box.isCurrent(sealed) else { continue }
            stale += 1
            let fresh = try box.seal(try box.open(sealed))
            let names = try key.indices.map { try row.decode(String.self, at: $0).postgresValue }
            resealed += try await pool.query(PostgresQuery(unsafeSQL: update, bindings: [fresh.postgresValue, sealed.postgresValue] + names)).count
        }
        return (resealed, stale)
    }
}
