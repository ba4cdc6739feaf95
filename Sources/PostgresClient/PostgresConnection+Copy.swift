import CLibPQ
import Synchronization

extension PostgresConnection {
    /// `COPY ... FROM STDIN`: streams `chunks` (text or CSV lines as the statement says) and returns the rows copied.
    /// If producing a chunk throws, the COPY is aborted server-side and the error rethrown.
    @discardableResult
    public func copyIn(_ sql: String, chunks: some Sequence<[UInt8]>) throws -> Int {
        try StatementSpan.run(sql, peer: peer, textIsSafe: true) { () throws -> Int in
            try handle.withLock { (handle: inout ConnectionHandle) throws -> Int in
                let connection = handle.pointer
                try Self.startCopy(connection, sql, expecting: PGRES_COPY_IN)
                var failure: (any Error)?
                for chunk in chunks where !chunk.isEmpty {
                    let sent = chunk.withUnsafeBufferPointer { buffer in
                        buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                            PQputCopyData(connection, $0, Int32(buffer.count))
                        }
                    }
                    if sent != 1 {
                        failure = PostgresError.copyFailed(message: String(cString: PQerrorMessage(connection)))
                        break
                    }
                }
                _ = failure == nil ? PQputCopyEnd(connection, nil) : PQputCopyEnd(connection, "aborted by the client")
                return try Self.drainResults(connection, priorFailure: failure)
            }
        }
    }

    /// `COPY ... FROM STDIN` fed by `body` through a writer, for data produced while something else runs on this
    /// thread (a rebuild writes while it reads another connection's COPY out). Returns the rows copied; if `body`
    /// throws, the COPY is aborted server-side and the error rethrown.
    @discardableResult
    public func copyIn(_ sql: String, writing body: (CopyInWriter) throws -> Void) throws -> Int {
        try StatementSpan.run(sql, peer: peer, textIsSafe: true) { () throws -> Int in
            try handle.withLock { (handle: inout ConnectionHandle) throws -> Int in
                let connection = handle.pointer
                try Self.startCopy(connection, sql, expecting: PGRES_COPY_IN)
                var failure: (any Error)?
                do { try body(CopyInWriter(connection: connection)) } catch { failure = error }
                _ = failure == nil ? PQputCopyEnd(connection, nil) : PQputCopyEnd(connection, "aborted by the client")
                return try Self.drainResults(connection, priorFailure: failure)
            }
        }
    }

    /// `COPY ... TO STDOUT`: hands each row's bytes to `receive`; returns the number of rows.
    @discardableResult
    public func copyOut(_ sql: String, _ receive: ([UInt8]) throws -> Void) throws -> Int {
        try StatementSpan.run(sql, peer: peer, textIsSafe: true) { () throws -> Int in
            try handle.withLock { (handle: inout ConnectionHandle) throws -> Int in
                let connection = handle.pointer
                try Self.startCopy(connection, sql, expecting: PGRES_COPY_OUT)
                var failure: (any Error)?
                while true {
                    var buffer: UnsafeMutablePointer<CChar>?
                    let length = PQgetCopyData(connection, &buffer, 0)
                    if length > 0, let buffer {
                        let bytes = buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
                            Array(UnsafeBufferPointer(start: $0, count: Int(length)))
                        }
                        PQfreemem(buffer)
                        if failure == nil {
                            do { try receive(bytes) } catch { failure = error }
                        }
                        continue
                    }
                    break  // -1: done, -2: error; either way the final result says which
                }
                return try Self.drainResults(connection, priorFailure: failure)
            }
        }
    }

    /// Sends the COPY statement; the server must answer that it is ready to stream in the expected direction.
    private static func startCopy(_ connection: OpaquePointer, _ sql: String, expecting status: ExecStatusType) throws(PostgresError) {
        guard let start = PQexec(connection, sql) else { throw connectionError(connection) }
        defer { PQclear(start) }
        guard PQresultStatus(start) == status else { throw serverError(start, connection: connection) }
    }

    /// Reads results until libpq returns NULL (required after COPY), clearing each; returns the affected rows.
    private static func drainResults(_ connection: OpaquePointer, priorFailure: (any Error)?) throws -> Int {
        var rows = 0
        var failure = priorFailure
        while let result = PQgetResult(connection) {
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK {
                rows = affectedRows(result)
            } else if failure == nil {
                failure = serverError(result, connection: connection)
            }
        }
        if let failure { throw failure }
        return rows
    }
}

/// Sends data of one `COPY … FROM STDIN` (`PostgresConnection.copyIn(_:writing:)`); valid only inside that call.
public struct CopyInWriter {
    fileprivate let connection: OpaquePointer

    public func send(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        let sent = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                PQputCopyData(connection, $0, Int32(buffer.count))
            }
        }
        if sent != 1 { throw PostgresError.copyFailed(message: String(cString: PQerrorMessage(connection))) }
    }
}
