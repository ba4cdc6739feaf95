import CLibPQ
import Glibc
import Synchronization

/// Owns one `PGconn`; `PQfinish` runs exactly once, when the owner goes away.
struct PreparedKey: Hashable {
    let sql: String
    let types: [Oid]
}

extension PreparedKey {
    init(_ query: PostgresQuery) { self.init(sql: query.sql, types: query.bindings.map { Oid($0.type.rawValue) }) }
}

struct ConnectionHandle: ~Copyable {
    let pointer: OpaquePointer
    /// Statements prepared on this connection: SQL text and parameter types → statement name (`query(prepared:)`).
    /// The types are part of the key: a NULL may be bound with another type than a value in the same place.
    var prepared: [PreparedKey: String] = [:]
    /// Names are never reused on a connection: a dropped entry's statement may still exist on the server.
    var preparedSerial = 0
    deinit { PQfinish(pointer) }
}

/// One PostgreSQL connection. Every method **blocks** the calling thread on network I/O: call them only from a
/// thread of `PostgresPool`'s own thread pool (the pool's `withConnection` does), never from an event loop.
///
/// The `PGconn` sits in a `Mutex`, so even a misuse from two threads cannot run two libpq calls on it at once.
public final class PostgresConnection: Sendable {
    let handle: Mutex<ConnectionHandle>
    /// Where it goes, for statement spans.
    let peer: StatementSpan.Peer

    init(pointer: sending OpaquePointer) {
        self.peer = StatementSpan.Peer(pointer)
        self.handle = Mutex(ConnectionHandle(pointer: pointer))
    }

    /// Opens a connection and runs the configuration's setup statements. Blocks for at most the connect timeout.
    public static func connect(_ configuration: PostgresConfiguration) throws(PostgresError) -> PostgresConnection {
        _ = CryptoAtExit.isKept
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

    /// The value libpq uses for a connection keyword (`connect_timeout`, `application_name`, ...): the connection
    /// string's where it names one, else ``PostgresConfiguration``'s default, else libpq's. Nil for an unset keyword.
    package func setting(_ keyword: String) -> String? {
        handle.withLock { handle in
            guard let options = PQconninfo(handle.pointer) else { return nil }
            defer { PQconninfoFree(options) }
            var option = options
            while let name = option.pointee.keyword {
                if String(cString: name) == keyword { return option.pointee.val.map { String(cString: $0) } }
                option += 1
            }
            return nil
        }
    }

    var lastErrorMessage: String {
        handle.withLock { handle in
            String(cString: PQerrorMessage(handle.pointer)).trimmingTrailingWhitespace()
        }
    }

    /// Runs one parameterised statement: parameters in binary with explicit type OIDs, results in binary.
    @discardableResult
    public func query(_ query: PostgresQuery) throws(PostgresError) -> PostgresRows {
        try StatementSpan.run(query.sql, peer: peer, textIsSafe: true) { () throws(PostgresError) -> PostgresRows in
            try handle.withLock { (handle: inout ConnectionHandle) throws(PostgresError) -> PostgresRows in
                let result = Self.execParams(handle.pointer, query)
                return try Self.consume(result, connection: handle.pointer)
            }
        }
    }

    /// Runs a statement the caller runs again and again (a status read, an append): prepared on this connection
    /// the first time, then only bound and executed, so PostgreSQL parses and plans it once per connection.
    ///
    /// At most `preparedLimit` statements are kept per connection (all are dropped when it is reached, so SQL built
    /// from data cannot grow a connection's memory). A statement the server no longer knows (`DISCARD ALL`) or
    /// whose result columns changed under it (a migration) is prepared again, once.
    @discardableResult
    public func query(prepared query: PostgresQuery) throws(PostgresError) -> PostgresRows {
        try StatementSpan.run(query.sql, peer: peer, textIsSafe: true) { () throws(PostgresError) -> PostgresRows in
            try handle.withLock { (handle: inout ConnectionHandle) throws(PostgresError) -> PostgresRows in
                do throws(PostgresError) {
                    return try Self.executePrepared(&handle, query)
                } catch {
                    guard Self.isStalePreparedStatement(error) else { throw error }
                    handle.prepared[PreparedKey(query)] = nil
                    return try Self.executePrepared(&handle, query)
                }
            }
        }
    }

    static let preparedLimit = 64

    /// Runs SQL text with no parameters through the simple protocol (several statements allowed, e.g. a migration).
    public func execute(_ sql: String) throws(PostgresError) {
        try StatementSpan.run(sql, peer: peer, textIsSafe: false) { () throws(PostgresError) in
            try handle.withLock { (handle: inout ConnectionHandle) throws(PostgresError) in
                _ = try Self.consume(PQexec(handle.pointer, sql), connection: handle.pointer)
            }
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

    private static func executePrepared(_ handle: inout ConnectionHandle, _ query: PostgresQuery) throws(PostgresError) -> PostgresRows {
        let name: String
        let key = PreparedKey(query)
        if let known = handle.prepared[key] {
            name = known
        } else {
            if handle.prepared.count >= preparedLimit {
                _ = try consume(PQexec(handle.pointer, "DEALLOCATE ALL"), connection: handle.pointer)
                handle.prepared.removeAll()
            }
            handle.preparedSerial += 1
            name = "ledger_\(handle.preparedSerial)"
            _ = try consume(PQprepare(handle.pointer, name, query.sql, Int32(key.types.count), key.types), connection: handle.pointer)
            handle.prepared[key] = name
        }
        return try consume(
            withParameters(query) { count, values, lengths, formats in
                PQexecPrepared(handle.pointer, name, count, values, lengths, formats, 1)
            }, connection: handle.pointer)
    }

    /// `invalid_sql_statement_name` (the server dropped it) or `feature_not_supported` for "cached plan must not
    /// change result type".
    private static func isStalePreparedStatement(_ error: PostgresError) -> Bool {
        guard case .server(let server) = error else { return false }
        return server.sqlState == "26000" || (server.sqlState == "0A000" && server.message.contains("cached plan"))
    }

    private static func execParams(_ connection: OpaquePointer, _ query: PostgresQuery) -> OpaquePointer? {
        let types = query.bindings.map { Oid($0.type.rawValue) }
        return withParameters(query) { count, values, lengths, formats in
            PQexecParams(connection, query.sql, count, types, values, lengths, formats, 1)
        }
    }

    /// Calls `body` with the parameters' values, lengths and formats, every pointer inside the `withUnsafe…` scope of
    /// one contiguous buffer.
    private static func withParameters(
        _ query: PostgresQuery,
        _ body: (Int32, [UnsafePointer<CChar>?], [Int32], [Int32]) -> OpaquePointer?
    ) -> OpaquePointer? {
        let bindings = query.bindings
        var storage: [UInt8] = []
        var offsets: [Int] = []
        for binding in bindings {
            offsets.append(storage.count)
            storage += binding.bytes ?? []
        }
        storage.append(0)  // a non-nil base address even when every parameter is empty
        let lengths = bindings.map { Int32($0.bytes?.count ?? 0) }
        let formats = bindings.map { Int32($0.isBinary ? 1 : 0) }
        return storage.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let values: [UnsafePointer<CChar>?] = bindings.indices.map { index in
                bindings[index].bytes == nil ? nil : base + offsets[index]
            }
            return body(Int32(bindings.count), values, lengths, formats)
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
            PostgresRows.Column(
                name: String(cString: PQfname(result, Int32(index))),
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
        return .server(
            ServerError(
                sqlState: sqlState, message: field("M") ?? "unknown error",
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
