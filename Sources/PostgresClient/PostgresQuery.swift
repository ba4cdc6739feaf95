/// SQL text with its parameters, built so that every interpolated value becomes a bound parameter.
///
/// ```swift
/// let query: PostgresQuery = "SELECT * FROM ledger.events WHERE app_id = \(appID) AND position > \(after)"
/// // sql: "... app_id = $1 AND position > $2", bindings: [appID, after]
/// ```
/// Only `\(unescaped:)` splices text, for identifiers the code itself chooses (never user input).
public struct PostgresQuery: Sendable, ExpressibleByStringInterpolation {
    public var sql: String
    public var bindings: [PostgresValue]

    public init(unsafeSQL sql: String, bindings: [PostgresValue] = []) {
        self.sql = sql
        self.bindings = bindings
    }

    public init(stringLiteral value: String) {
        self.init(unsafeSQL: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(unsafeSQL: stringInterpolation.sql, bindings: stringInterpolation.bindings)
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var bindings: [PostgresValue] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
        }

        public mutating func appendLiteral(_ literal: String) { sql += literal }

        public mutating func appendInterpolation(_ value: some PostgresEncodable) {
            bindings.append(value.postgresValue)
            sql += "$\(bindings.count)"
        }

        /// An optional binds its value or NULL. Spelled out so the compiler does not take `\(optional)` for a
        /// debug description by mistake (it warns on optionals passed to a generic interpolation).
        public mutating func appendInterpolation<Wrapped: PostgresEncodable>(_ value: Wrapped?) {
            bindings.append(value.postgresValue)
            sql += "$\(bindings.count)"
        }

        public mutating func appendInterpolation(unescaped text: String) { sql += text }
    }
}

/// Quoting for identifiers the code must splice into SQL (database names in CREATE DATABASE, channels in LISTEN).
public enum PostgresIdentifier {
    public static func quote(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
