/// Every failure of the PostgreSQL client, with the context needed to act on it.
public enum PostgresError: Error, Sendable, CustomStringConvertible {
    /// The server could not be reached or refused the login.
    case connectionFailed(message: String)
    /// The connection broke while in use (server stopped, network gone). The pool replaces such connections.
    case connectionLost(message: String)
    /// The server answered with an error; `sqlState` is the five-character SQLSTATE code.
    case server(ServerError)
    /// A result did not have the shape the caller asked for (wrong type, NULL, missing column).
    case decoding(column: String, message: String)
    /// The pool was shut down or its thread pool is not running.
    case poolClosed
    /// A COPY stream failed.
    case copyFailed(message: String)

    public var description: String {
        switch self {
        case .connectionFailed(let message): "could not connect to PostgreSQL: \(message)"
        case .connectionLost(let message): "the PostgreSQL connection was lost: \(message)"
        case .server(let error): error.description
        case .decoding(let column, let message): "cannot decode column \(column): \(message)"
        case .poolClosed: "the PostgreSQL connection pool is closed"
        case .copyFailed(let message): "COPY failed: \(message)"
        }
    }

    /// The SQLSTATE of a server error, nil for client-side failures.
    public var sqlState: String? {
        if case .server(let error) = self { return error.sqlState }
        return nil
    }

    /// True when retrying on a new connection may succeed (the server or the network went away, or the server is
    /// a standby now).
    public var isConnectionProblem: Bool {
        switch self {
        case .connectionFailed, .connectionLost: true
        case .server(let error):
            // Class 08: connection exception; 57P01..57P03: admin shutdown, crash shutdown, cannot connect now.
            error.sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(error.sqlState) || isReadOnlyServer
        default: false
        }
    }

    /// 25006 (read_only_sql_transaction): a write reached a standby, such as a primary demoted by a failover.
    public var isReadOnlyServer: Bool { sqlState == "25006" }
}

/// An error reported by the server, with its diagnostic fields.
public struct ServerError: Sendable, CustomStringConvertible {
    public var sqlState: String
    public var message: String
    public var detail: String?
    public var hint: String?
    public var constraint: String?

    public init(sqlState: String, message: String, detail: String? = nil, hint: String? = nil, constraint: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
        self.constraint = constraint
    }

    public var description: String {
        var text = "PostgreSQL error \(sqlState): \(message)"
        if let detail { text += " (\(detail))" }
        if let hint { text += " Hint: \(hint)" }
        return text
    }

    public static let uniqueViolation = "23505"
    public static let insufficientPrivilege = "42501"
    public static let raiseException = "P0001"
}
