import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

@Suite struct PostgresConnectionTests {
    /// Runs `body` on a connection to a fresh database, on the pool's own thread (libpq blocks).
    func withFreshConnection(_ body: @escaping @Sendable (PostgresConnection) throws -> Void) async throws {
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: try await TestDatabase.makeDatabase()), size: 1)
        defer { Task { await pool.shutdown() } }
        try await pool.withConnection(body)
    }

    @Test func bindsAndDecodesEveryTypeInBinary() async throws {
        try await withFreshConnection { connection in
            let stamp = PostgresTimestamp(microsecondsSinceEpoch: 1_697_679_936_049_730)
            let id = UUID()
            let row = try #require(
                try connection.query(
                    """
                    SELECT \(Int64.max)::int8, \(Int32(-7))::int4, \(Int16(3))::int2, \("héllo ✓ ' \" \\ ; DROP TABLE x")::text,
                           \([UInt8]([0, 1, 255]))::bytea, \(true)::bool, \(stamp)::timestamptz, \(JSONB(#"{"b": [1, 2.50], "a": "x"}"#))::jsonb,
                           \(id)::uuid, \(Optional<String>.none)::text, \(Decimal(string: "12.345")!)::numeric::text
                    """
                ).first)
            #expect(try row.decode(Int64.self, at: 0) == Int64.max)
            #expect(try row.decode(Int32.self, at: 1) == -7)
            #expect(try row.decode(Int.self, at: 2) == 3)
            #expect(try row.decode(String.self, at: 3) == "héllo ✓ ' \" \\ ; DROP TABLE x")
            #expect(try row.decode([UInt8].self, at: 4) == [0, 1, 255])
            #expect(try row.decode(Bool.self, at: 5))
            #expect(try row.decode(PostgresTimestamp.self, at: 6) == stamp)
            #expect(try row.decode(String.self, at: 7) == #"{"a": "x", "b": [1, 2.50]}"#)
            #expect(try row.decode(UUID.self, at: 8) == id)
            #expect(try row.decode(String?.self, at: 9) == nil)
            #expect(try row.decode(Decimal.self, at: 10) == Decimal(string: "12.345"))
            #expect(throws: PostgresError.self) { try row.decode(String.self, at: 9) }
            #expect(throws: PostgresError.self) { try row.decode(Bool.self, at: 0) }
        }
    }

    @Test func arraysBindForAnyLookups() async throws {
        try await withFreshConnection { connection in
            let rows = try connection.query(
                """
                SELECT x FROM unnest(\(TextArray(["a", "b", ""]))) AS x WHERE x = ANY(\(TextArray(["b", ""]))) ORDER BY x
                """)
            #expect(try rows.map { try $0.decode(String.self, at: 0) } == ["", "b"])
            let sum = try connection.query("SELECT sum(x)::int8 FROM unnest(\(Int64Array([1, 2, 40]))) AS x")
            #expect(try sum.first?.decode(Int64.self, at: 0) == 43)
        }
    }

    @Test func textArraysDecodeWithQuotesEmptiesAndNoDimensions() async throws {
        try await withFreshConnection { connection in
            let elements = ["a", "", #"say "hi", \ {x}"#, "✓"]
            let row = try #require(try connection.query("SELECT \(TextArray(elements)), '{}'::text[], ARRAY['x', NULL]").first)
            #expect(try row.decode(TextArray.self, at: 0).elements == elements)
            #expect(try row.decode(TextArray.self, at: 1).elements == [])
            #expect(throws: PostgresError.self) { try row.decode(TextArray.self, at: 2) }
            let typed = try #require(try connection.query("SELECT ARRAY[1, 2]").first)
            #expect(throws: PostgresError.self) { try typed.decode(TextArray.self, at: 0) }
        }
    }

    @Test func preparedStatementsArePreparedOncePerConnectionAndSurviveDiscardAndChangedColumns() async throws {
        try await withFreshConnection { connection in
            func prepared() throws -> [String] {
                try connection.query("SELECT statement FROM pg_prepared_statements ORDER BY name").map { try $0.decode(String.self, at: 0) }
            }
            try connection.execute("CREATE TABLE t (id int, name text)")
            try connection.query("INSERT INTO t VALUES (1, 'one'), (2, 'two')")
            let byID = { (id: Int32) in PostgresQuery("SELECT * FROM t WHERE id = \(id)") }
            for id: Int32 in [1, 2, 1] {
                let row = try #require(try connection.query(prepared: byID(id)).first)
                #expect(try row.decode(String.self, at: 1) == (id == 1 ? "one" : "two"))
            }
            #expect(try prepared() == [byID(1).sql], "one statement, prepared once for three calls")

            try connection.execute("DISCARD ALL")
            #expect(try connection.query(prepared: byID(2)).count == 1, "prepared again after the server forgot it")
            try connection.execute("ALTER TABLE t ADD COLUMN extra text")
            #expect(try connection.query(prepared: byID(2)).first?.decode(String?.self, at: 2) == nil, "prepared again for the new columns")

            // The same text bound once with a NULL (typed otherwise) and once with a value: two statements.
            let maybe = { (value: Int64?) in PostgresQuery("SELECT \(value)::int8 IS NULL") }
            #expect(try connection.query(prepared: maybe(nil)).first?.decode(Bool.self, at: 0) == true)
            #expect(try connection.query(prepared: maybe(0)).first?.decode(Bool.self, at: 0) == false)

            // A connection keeps a bounded number: SQL built from data cannot grow it without end.
            for n in 0..<Int32(100) { try connection.query(prepared: PostgresQuery(unsafeSQL: "SELECT \(n) + $1", bindings: [n.postgresValue])) }
            #expect(try prepared().count <= 64)
            #expect(
                try connection.query(prepared: PostgresQuery(unsafeSQL: "SELECT 99 + $1", bindings: [Int32(1).postgresValue]))
                    .first?.decode(Int64.self, at: 0) == 100)
        }
    }

    @Test func serverErrorsCarrySQLStateAndConstraint() async throws {
        try await withFreshConnection { connection in
            try connection.execute("CREATE TABLE t (id int CONSTRAINT t_pk PRIMARY KEY)")
            try connection.query("INSERT INTO t VALUES (\(Int32(1)))")
            do {
                try connection.query("INSERT INTO t VALUES (\(Int32(1)))")
                Issue.record("a duplicate insert must fail")
            } catch let error as PostgresError {
                guard case .server(let server) = error else { Issue.record("expected a server error, got \(error)"); return }
                #expect(server.sqlState == "23505")
                #expect(server.constraint == "t_pk")
            }
            #expect(connection.isReusable)
        }
    }

    @Test func transactionRollsBackOnError() async throws {
        try await withFreshConnection { connection in
            try connection.execute("CREATE TABLE t (id int PRIMARY KEY)")
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try connection.transaction { connection in
                    try connection.query("INSERT INTO t VALUES (\(Int32(1)))")
                    throw Stop()
                }
            }
            // A failure caught inside the body must not be committed as if nothing happened.
            #expect(throws: PostgresError.self) {
                try connection.transaction { connection in
                    try connection.query("INSERT INTO t VALUES (\(Int32(2)))")
                    _ = try? connection.query("SELECT 1/0")
                }
            }
            #expect(try connection.query("SELECT count(*) FROM t").first?.decode(Int64.self, at: 0) == 0)
            #expect(connection.isReusable)
        }
    }

    @Test func copyInAndOut() async throws {
        try await withFreshConnection { connection in
            try connection.execute("CREATE TABLE t (id int, name text)")
            let lines = (1...1000).map { Array("\($0)\tname \($0)\n".utf8) }
            #expect(try connection.copyIn("COPY t FROM STDIN", chunks: lines) == 1000)
            var received: [[UInt8]] = []
            let count = try connection.copyOut("COPY (SELECT * FROM t ORDER BY id) TO STDOUT") { received.append($0) }
            #expect(count == 1000)
            #expect(received == lines)
            #expect(throws: PostgresError.self) { try connection.copyIn("COPY t FROM STDIN", chunks: [Array("not-a-number\tx\n".utf8)]) }
            #expect(connection.isReusable)
        }
    }

    @Test func connectsThroughAUnixSocketAndAURL() async throws {
        let keywords = try await TestDatabase.makeDatabase()
        // The embedded test server also listens on a Unix socket; a DATABASE_URL server may not.
        if let socket = try await TestDatabase.server().unixSocketDirectory {
            let viaSocket = keywords.replacingOccurrences(of: "host=127.0.0.1", with: "host=\(socket)")
            let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: viaSocket))
            // A Unix-socket session has no client address.
            #expect(try connection.query("SELECT inet_client_addr() IS NULL").first?.decode(Bool.self, at: 0) == true)
            let fields = Dictionary(
                uniqueKeysWithValues: keywords.split(separator: " ").map { field in
                    let parts = field.split(separator: "=", maxSplits: 1)
                    return (String(parts[0]), String(parts[1]))
                })
            let url = "postgresql://\(fields["user"]!):\(fields["password"]!)@127.0.0.1:\(fields["port"]!)/\(fields["dbname"]!)?sslmode=disable"
            let overTCP = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
            #expect(try overTCP.query("SELECT inet_client_addr() IS NOT NULL").first?.decode(Bool.self, at: 0) == true)
        }
    }

    @Test func unreachableServerFailsFastWithAClearError() async throws {
        let start = ContinuousClock.now
        #expect {
            _ = try PostgresConnection.connect(PostgresConfiguration(connectionString: "host=127.0.0.1 port=1 dbname=x connect_timeout=3"))
        } throws: { error in
            guard let error = error as? PostgresError, case .connectionFailed(let message) = error else { return false }
            return message.contains("127.0.0.1") || message.lowercased().contains("connect")
        }
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    /// The connection string wins over the configuration's defaults (libpq takes the last value of a keyword), and
    /// the test clusters' connections wait longer than the default for a backend that starts slowly under load.
    @Test func theConnectionStringsKeywordsWinOverTheDefaults() async throws {
        let database = try await TestDatabase.makeDatabase()
        try await Blocking.run {
            let fromTheTestServer = try PostgresConnection.connect(PostgresConfiguration(connectionString: database))
            #expect(fromTheTestServer.setting("connect_timeout") == "60")
            #expect(fromTheTestServer.setting("application_name") == "subscription-ledger")
            let overridden = try PostgresConnection.connect(
                PostgresConfiguration(connectionString: database + " connect_timeout=7 application_name=mine", connectTimeoutSeconds: 10))
            #expect(overridden.setting("connect_timeout") == "7")
            #expect(overridden.setting("application_name") == "mine")
            #expect(overridden.setting("no_such_keyword") == nil)
        }
    }
}
