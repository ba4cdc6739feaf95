import InMemoryTracing
import PostgresTestSupport
import Testing
import Tracing

@testable import PostgresClient

/// Statement spans: made only inside a trace, with OpenTelemetry's database attributes, the statement's text with
/// its `$n` placeholders and never a parameter's value.
@Suite struct StatementSpanTests {
    @Test(arguments: [
        ("SELECT 1", "SELECT"), ("  with x AS (SELECT 1) SELECT * FROM x", "WITH"), ("\n(SELECT 1)", "SELECT"),
        ("INSERT INTO t VALUES ($1)", "INSERT"), ("", "statement"), ("$1", "statement")
    ])
    func theOperationIsTheFirstKeyword(sql: String, operation: String) {
        #expect(StatementSpan.operation(of: sql) == operation)
    }

    @Test func aStatementInsideATraceIsAChildSpanWithoutItsParameters() async throws {
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: try await TestDatabase.makeDatabase()), size: 1)
        defer { Task { await pool.shutdown() } }
        let tracer = InMemoryTracer()
        let secret = "user-\(Int.random(in: 100_000...999_999))@example.com"
        try await withTracer(tracer) {
            try await withSpan("caller") { _ in
                let rows = try await pool.query("SELECT length(\(secret))")
                #expect(try rows.first?.decode(Int32.self, at: 0) == Int32(secret.count))
                await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1 / (\(0) - 0)") }
            }
        }
        let spans = tracer.finishedSpans
        let caller = try #require(spans.first { $0.operationName == "caller" })
        let statements = spans.filter { $0.parentSpanID == caller.spanID }
        #expect(statements.count == 2, "\(spans.map(\.operationName))")
        for statement in statements {
            #expect(statement.kind == .client)
            #expect(statement.attributes["db.system.name"]?.toSpanAttribute() == .string("postgresql"))
            #expect(statement.attributes["db.operation.name"]?.toSpanAttribute() == .string("SELECT"))
            #expect(statement.attributes["db.namespace"] != nil && statement.attributes["server.address"] != nil)
            statement.attributes.forEach { key, value in #expect(!"\(value)".contains(secret), "\(key) holds a parameter's value") }
        }
        #expect(statements[0].attributes["db.query.text"]?.toSpanAttribute() == .string("SELECT length($1)"))
        #expect(statements[1].status?.code == .error)
        #expect(statements[1].attributes["db.response.status_code"]?.toSpanAttribute() == .string("22012"))
    }

    /// Off the trace (tracing off, or a worker outside any traced operation) a statement makes no span at all.
    @Test func aStatementOutsideATraceMakesNoSpan() async throws {
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: try await TestDatabase.makeDatabase()), size: 1)
        defer { Task { await pool.shutdown() } }
        let tracer = InMemoryTracer()
        try await withTracer(tracer) { _ = try await pool.query("SELECT 1") }
        #expect(tracer.finishedSpans.isEmpty && tracer.activeSpans.isEmpty)
    }
}
