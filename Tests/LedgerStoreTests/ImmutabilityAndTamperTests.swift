import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import Testing

@Suite struct ImmutabilityAndTamperTests {
    @Test func theServiceRoleCannotUpdateDeleteOrTruncate() async throws {
        let fixture = try await StoreFixture.make()
        _ = try await fixture.store.append(app: "app", stream: "s", events: [event("a")])
        for statement in ["UPDATE ledger.events SET payload = '{}'", "DELETE FROM ledger.events", "TRUNCATE ledger.events"] {
            await #expect("\(statement)") {
                try await fixture.store.pool.query(PostgresQuery(unsafeSQL: statement))
            } throws: { error in
                (error as? PostgresError)?.sqlState == ServerError.insufficientPrivilege
            }
        }
        #expect(try await fixture.store.pool.query("SELECT current_user::text").first?.decode(String.self, at: 0) == LedgerDatabase.serviceRole)
        await fixture.close()
    }

    @Test func theTriggersRefuseChangesEvenFromASuperuser() async throws {
        let fixture = try await StoreFixture.make()
        _ = try await fixture.store.append(app: "app", stream: "s", events: [event("a")])
        for statement in ["UPDATE ledger.events SET payload = '{}'", "DELETE FROM ledger.events", "TRUNCATE ledger.events"] {
            await #expect("\(statement)") {
                try await fixture.superuser.query(PostgresQuery(unsafeSQL: statement))
            } throws: { error in
                guard case .server(let server) = error as? PostgresError else { return false }
                return server.message.contains("append-only")
            }
        }
        await fixture.close()
    }

    /// The chain trigger links each event to the version just below it in its stream, whoever writes the row: a
    /// version that skips one is refused, and a row written by hand gets the previous event's hash (schema/035).
    @Test func theChainTriggerLinksTheVersionJustBelowAndRefusesAGap() async throws {
        let fixture = try await StoreFixture.make()
        _ = try await fixture.store.append(app: "app", stream: "s", events: (1...300).map { event("k\($0)") })
        func insert(version: Int64, key: String) async throws {
            try await fixture.superuser.query(
                """
                INSERT INTO ledger.events (app_id, stream_id, stream_version, event_type, payload, idempotency_key, occurred_at, previous_hash, hash)
                VALUES ('app', 's', \(version), 'test.happened', '{}', \(key), now(), ''::bytea, ''::bytea)
                """)
        }
        await #expect {
            try await insert(version: 302, key: "gap")
        } throws: { error in
            guard case .server(let server) = error as? PostgresError else { return false }
            return server.sqlState == "P0002" && server.message.contains("no version 301")
        }
        try await insert(version: 301, key: "next")
        let stream = try await fixture.store.readStream(app: "app", stream: "s")
        #expect(stream.count == 301)
        #expect(stream[300].previousHash == stream[299].hash && stream[299].previousHash == stream[298].hash)
        #expect(try await fixture.superuser.withConnection { try LogVerifier().verify(on: $0) }.isIntact)
        await fixture.close()
    }

    @Test func verifyConfirmsAnIntactChainWithAwkwardPayloads() async throws {
        let fixture = try await StoreFixture.make()
        let payloads = [#"{"b": 1, "a": [1.50, -0, 1e3]}"#, #"{"ünï": "✓ \"quoted\" \\ \n", "emoji": "🧾"}"#, #"{}"#]
        for (index, payload) in payloads.enumerated() {
            _ = try await fixture.store.append(app: "app-\(index % 2)", stream: "s", events: [event("k\(index)", payload: payload)])
        }
        let report = try await fixture.superuser.withConnection { try LogVerifier().verify(on: $0) }
        #expect(report.isIntact)
        #expect(report.eventsChecked == 3)
        await fixture.close()
    }

    /// A superuser with triggers disabled edits, deletes and inserts rows; verify names the position each time.
    @Test(
        .disabled(
            if: CitusTestCluster.isActive,
            "the tamper switches off triggers for its session (session_replication_role), which Citus does not carry to the workers"),
        arguments: ["edit", "delete", "insert"])
    func verifyFindsWhatASuperuserChanged(change: String) async throws {
        let fixture = try await StoreFixture.make()
        let result = try await fixture.store.append(app: "app", stream: "s", events: (1...5).map { event("e\($0)") })
        let target = result.positions[2]
        let sql: String =
            switch change {
            case "edit": "UPDATE ledger.events SET payload = '{\"n\": 999}' WHERE position = \(target)"
            case "delete": "DELETE FROM ledger.events WHERE position = \(target)"
            default:
                """
                INSERT INTO ledger.events (app_id, stream_id, stream_version, event_type, payload, idempotency_key, occurred_at, previous_hash, hash)
                SELECT app_id, stream_id, 6, event_type, '{"n": 6}', 'forged', occurred_at, hash, hash FROM ledger.events WHERE position =\
                 \(result.positions[4])
                """
            }
        try await fixture.superuser.withConnection { connection in
            try connection.execute("SET session_replication_role = replica")  // disables the triggers
            try connection.execute(sql)
            try connection.execute("RESET session_replication_role")
        }
        let report = try await fixture.superuser.withConnection { try LogVerifier().verify(on: $0) }
        let problem = try #require(report.problems.first)
        switch change {
        case "edit":
            #expect(problem.kind == .altered)
            #expect(problem.position == target)
        case "delete":
            #expect(problem.kind == .removed)
            #expect(problem.position == result.positions[3])  // the event after the gap
            #expect(problem.message.contains("version 3 is missing"))
        default:
            #expect(problem.kind == .altered)
            #expect(problem.position > result.positions[4])
        }
        await fixture.close()
    }
}
