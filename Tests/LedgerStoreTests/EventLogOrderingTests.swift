import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import Testing

@Suite struct EventLogOrderingTests {
    /// Transaction A takes a position and stays open; B takes the next position and commits first. A reader must
    /// not move past A: it delivers A once A commits, then B, and never skips A.
    @Test func anEventThatCommitsLateIsNotSkipped() async throws {
        let fixture = try await StoreFixture.make()
        // A connection of the test's own (these calls return at once: nothing here waits on a lock).
        let writerA = try PostgresConnection.connect(PostgresConfiguration(connectionString: fixture.connectionString))
        try writerA.execute("BEGIN")
        let positionA = try writerA.query(
            """
            INSERT INTO ledger.events (app_id, stream_id, stream_version, event_type, payload, idempotency_key, occurred_at)
            VALUES ('app', 'stream-a', 1, 'late', '{}', 'late', now()) RETURNING position
            """
        ).first!.decode(Int64.self, at: 0)
        let b = try await fixture.store.append(app: "app", stream: "stream-b", events: [event("early")])
        #expect(b.positions[0] > positionA)

        // While A is open, B is committed but not yet delivered.
        let whileOpen = try await fixture.store.readForward(after: .start)
        #expect(whileOpen.isEmpty)

        try writerA.execute("COMMIT")
        // Transactions of other databases on the same server (parallel tests) can hold the snapshot's xmin back a
        // little longer, so read through the subscription, which waits for them, rather than once.
        var subscription = fixture.store.subscribe(pollInterval: .milliseconds(50)).makeAsyncIterator()
        let first = try #require(try await subscription.next())
        let second = try #require(try await subscription.next())
        #expect([first.idempotencyKey, second.idempotencyKey] == ["late", "early"])
        // Resuming from the last checkpoint delivers nothing twice.
        #expect(try await fixture.store.readForward(after: second.checkpoint).isEmpty)
        await fixture.close()
    }

    @Test func subscriptionDeliversEventsAppendedLater() async throws {
        let fixture = try await StoreFixture.make()
        _ = try await fixture.store.append(app: "app", stream: "s", events: [event("before")])
        var iterator = fixture.store.subscribe(app: "app", pollInterval: .seconds(30)).makeAsyncIterator()
        #expect(try await iterator.next()?.idempotencyKey == "before")
        _ = try await fixture.store.append(app: "app", stream: "s", events: [event("after")])
        await fixture.store.notifyAppended(app: "app")
        #expect(try await iterator.next()?.idempotencyKey == "after")
        await fixture.close()
    }
}
