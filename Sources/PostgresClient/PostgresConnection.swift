import CLibPQ
import Glibc
import Synchronization

/// Owns one `PGconn`; `PQfinish` runs exactly once, when the owner goes away.
struct ConnectionHandle: ~Copyable {
    let pointer: OpaquePointer
    deinit { PQfinish(pointer) }
}

/// One PostgreSQL connection. Every method **blocks** the calling thread on network I/O: call them only from a
/// thread of `PostgresPool`'s own thread pool (the pool's `withConnection` does), never from an event loop.
///
/// The `PGconn` sits in a `Mutex`, so even a misuse from two threads cannot run two libpq calls on it at once.
public final class PostgresConnection: Sendable {
    let handle: Mutex<ConnectionHandle>

    init(pointer: sending OpaquePointer) {
        self.handle = Mutex(ConnectionHandle(pointer: pointer))
    }

    /// Opens a connection and runs the configuration's setup statements. Blocks for at most the connect timeout.
    public static func connect(_ configuration: PostgresConfiguration) throws(PostgresError) -> PostgresConnection {
        let pairs = configuration.keywordValuePairs
        let pointer: OpaquePointer? = withCStrings(pairs.map(\.0)) { keywords in
            withCStrings(pairs.map(\.1)) { values in
                PQconnectdbParams(keywords, values, 1)
            }
        }
        guard let pointer else { throw .connectionFailed(message: "libpq could not allocate a connection") }
        let connection = PostgresConnection(pointer: pointer)
        guard connection.isOpen else {
            throw .connectionFailed(message: connection.lastErrorMessage)
        }
        for statement in configuration.setupStatements {
            try connection.execute(statement)
        }
        return connection
    }

    /// True while the connection is open and not inside a transaction: only such connections go back to a pool.
    public var isReusable: Bool {
        handle.withLock { handle in
            PQstatus(handle.pointer) == CONNECTION_OK && PQtransactionStatus(handle.pointer) == PQTRANS_IDLE
        }
    }

    public var isOpen: Bool { handle.withLock { PQstatus($0.pointer) == CONNECTION_OK } }

    var lastErrorMessage: String {
        handle.withLock { handle in
            String(cString: PQerrorMessage(handle.pointer)).trimmingTrailingWhitespace()
        }
    }

    /// Runs one parameterised statement: parameters in binary with explicit type OIDs, results in binary.
    @discardableResult
    public func query(_ query: PostgresQuery) throws(PostgresError) -> PostgresRows {
        try handle.withLock { (handle: inout ConnectionHandle) throws(PostgresError) -> PostgresRows in
            let result = Self.execParams(handle.pointer, query)
            return try Self.consume(result, connection: handle.pointer)
        }
    }

    /// Runs SQL text with no parameters through the simple protocol (several statements allowed, e.g. a migration).
    public func execute(_ sql: String) throws(PostgresError) {
        try handle.withLock { (handle: inout ConnectionHandle) throws(PostgresError) in
            _ = try Self.consume(PQexec(handle.pointer, sql), connection: handle.pointer)
        }
    }

    /// Runs `body` inside BEGIN / COMMIT; any error rolls back and is rethrown.
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let value = try body(self)
            // A statement that failed inside the body (and was caught there) leaves the transaction aborted;
            // COMMIT would then quietly roll back. Refuse instead of pretending it committed.
            let aborted = handle.withLock { PQtransactionStatus($0.pointer) == PQTRANS_INERROR }
            if aborted {
                throw PostgresError.server(ServerError(sqlState: "25P02", message: "the transaction was aborted by an earlier error"))
            }
            try execute("COMMIT")
            return value
        } catch {
            if isOpen { try? execute("ROLLBACK") }
            throw error
        }
    }

    // MARK: - libpq plumbing

    /// Keeps every parameter pointer inside the `withUnsafe…` scope of one contiguous buffer.
    private static func execParams(_ connection: OpaquePointer, _ query: PostgresQuery) -> OpaquePointer? {
        let bindings = query.bindings
        var storage: [UInt8] = []
        var offsets: [Int] = []
        for binding in bindings {
            offsets.append(storage.count)
            storage += binding.bytes ?? []
        }
        storage.append(0) // a non-nil base address even when every parameter is empty
        let types = bindings.map { Oid($0.type.rawValue) }
        let lengths = bindings.map { Int32($0.bytes?.count ?? 0) }
        let formats = bindings.map { Int32($0.isBinary ? 1 : 0) }
        return storage.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let values: [UnsafePointer<CChar>?] = bindings.indices.map { index in
                bindings[index].bytes == nil ? nil : base + offsets[index]
            }
            return PQexecParams(connection, query.sql, Int32(bindings.count), types, values, lengths, formats, 1)
        }
    }

    /// Reads a result into Swift storage and clears it, or turns it into a typed error.
    static func consume(_ result: OpaquePointer?, connection: OpaquePointer) throws(PostgresError) -> PostgresRows {
        guard let result else {
            throw connectionError(connection)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY, PGRES_COPY_IN, PGRES_COPY_OUT:
            return PostgresRows(columns: [], affectedRows: affectedRows(result), storage: [], cells: [], rowCount: 0)
        case PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE:
            return copyRows(result)
        default:
            throw serverError(result, connection: connection)
        }
    }

    static func affectedRows(_ result: OpaquePointer) -> Int {
        Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    private static func copyRows(_ result: OpaquePointer) -> PostgresRows {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let columns = (0..<columnCount).map { index in
            PostgresRows.Column(name: String(cString: PQfname(result, Int32(index))),
                                type: PostgresType(rawValue: UInt32(PQftype(result, Int32(index)))))
        }
        var storage: [UInt8] = []
        var cells: [(offset: Int, length: Int)] = []
        cells.reserveCapacity(rowCount * columnCount)
        for row in 0..<Int32(rowCount) {
            for column in 0..<Int32(columnCount) {
                if PQgetisnull(result, row, column) == 1 {
                    cells.append((storage.count, -1))
                    continue
                }
                let length = Int(PQgetlength(result, row, column))
                let offset = storage.count
                if length > 0, let value = PQgetvalue(result, row, column) {
                    value.withMemoryRebound(to: UInt8.self, capacity: length) { pointer in
                        storage.append(contentsOf: UnsafeBufferPointer(start: pointer, count: length))
                    }
                }
                cells.append((offset, length))
            }
        }
        return PostgresRows(columns: columns, affectedRows: affectedRows(result), storage: storage, cells: cells, rowCount: rowCount)
    }

    static func serverError(_ result: OpaquePointer, connection: OpaquePointer) -> PostgresError {
        func field(_ code: Character) -> String? {
            guard let value = PQresultErrorField(result, Int32(code.asciiValue ?? 0)) else { return nil }
            return String(cString: value)
        }
        guard let sqlState = field("C") else {
            // libpq's own errors (connection broke mid-query) carry no SQLSTATE.
            return connectionError(connection, fallback: String(cString: PQresultErrorMessage(result)))
        }
        return .server(ServerError(sqlState: sqlState, message: field("M") ?? "unknown error",
                                   detail: field("D"), hint: field("H"), constraint: field("n")))
    }

    static func connectionError(_ connection: OpaquePointer, fallback: String? = nil) -> PostgresError {
        let message = String(cString: PQerrorMessage(connection)).trimmingTrailingWhitespace()
        let text = message.isEmpty ? (fallback ?? "no answer from the server").trimmingTrailingWhitespace() : message
        return PQstatus(connection) == CONNECTION_OK ? .server(ServerError(sqlState: "XX000", message: text)) : .connectionLost(message: text)
    }
}

extension String {
    func trimmingTrailingWhitespace() -> String {
        var text = self
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}

/// Calls `body` with a NULL-terminated array of C strings that live exactly as long as the call.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let duplicates: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    defer { duplicates.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = duplicates.map { $0.map { UnsafePointer($0) } } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
