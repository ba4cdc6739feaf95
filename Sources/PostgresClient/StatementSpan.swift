import CLibPQ
import Tracing

/// A client span for each statement, with OpenTelemetry's database conventions (`db.system.name`, `db.namespace`,
/// `db.operation.name`, `db.query.text`, `server.address`, `server.port`), made only inside a trace: a statement run
/// with no `InstrumentationContext` (tracing off, or a background worker outside any traced operation) costs one
/// task-local read and nothing else.
///
/// `db.query.text` is the statement as sent, with `$n` placeholders: parameters travel apart, in binary, and their
/// values never reach a span. Text run through the simple protocol (`execute`: BEGIN, COMMIT, migrations) may hold
/// literals, so its spans name only the operation.
struct StatementSpan {
    /// Where the connection goes, read from libpq once when it opens.
    struct Peer: Sendable {
        var database: String
        var host: String
        var port: Int?

        init(_ connection: OpaquePointer) {
            database = PQdb(connection).map { String(cString: $0) } ?? ""
            host = PQhost(connection).map { String(cString: $0) } ?? ""
            port = PQport(connection).flatMap { Int(String(cString: $0)) }
        }
    }

    /// Runs `body` inside a span for `sql` when a trace is current.
    static func run<T, Failure: Error>(
        _ sql: String, peer: Peer, textIsSafe: Bool, _ body: () throws(Failure) -> T
    ) throws(Failure) -> T {
        guard let context = InstrumentationContext.current else { return try body() }
        let operation = Self.operation(of: sql)
        let span = startSpan(peer.database.isEmpty ? operation : "\(operation) \(peer.database)", context: context, ofKind: .client)
        defer { span.end() }
        if span.isRecording {
            span.updateAttributes { attributes in
                attributes["db.system.name"] = "postgresql"
                attributes["db.namespace"] = peer.database
                attributes["db.operation.name"] = operation
                if textIsSafe { attributes["db.query.text"] = sql }
                attributes["server.address"] = peer.host
                if let port = peer.port { attributes["server.port"] = port }
            }
        }
        do {
            return try body()
        } catch {
            if let code = (error as? PostgresError)?.sqlState { span.attributes["db.response.status_code"] = code }
            span.setStatus(SpanStatus(code: .error))
            span.recordError(error)
            throw error
        }
    }

    /// The statement's first keyword, upper-cased (`SELECT`, `INSERT`, `WITH`, `COPY`, `BEGIN`).
    static func operation(of sql: String) -> String {
        let keyword = sql.drop { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "(" }.prefix { $0.isLetter }
        return keyword.isEmpty ? "statement" : keyword.uppercased()
    }
}
