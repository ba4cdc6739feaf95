import LedgerDomain
import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import Testing
import UTCTime

@Suite struct EventStoreAppendTests {
    @Test func appendsBatchesWithVersionsAndReadsTheStreamBack() async throws {
        let fixture = try await StoreFixture.make()
        let first = try await fixture.store.append(app: "app-1", stream: "s", expected: .noStream, events: [event("a"), event("b")])
        #expect(first.appendedCount == 2)
        #expect(first.streamVersion == 2)
        let second = try await fixture.store.append(app: "app-1", stream: "s", expected: .exact(2), events: [event("c")])
        #expect(second.streamVersion == 3)
        let events = try await fixture.store.readStream(app: "app-1", stream: "s")
        #expect(events.map(\.idempotencyKey) == ["a", "b", "c"])
        #expect(events.map(\.streamVersion) == [1, 2, 3])
        #expect(events.map(\.position) == first.positions + second.positions)
        #expect(events[0].occurredAt == Instant(microsecondsSinceEpoch: 1_700_000_000_123_456))
        #expect(events[1].previousHash == events[0].hash)
        // Tenants are separate: the same stream and key in another app is another event.
        let other = try await fixture.store.append(app: "app-2", stream: "s", expected: .noStream, events: [event("a")])
        #expect(other.appendedCount == 1)
        await fixture.close()
    }

    @Test func wrongExpectedVersionIsATypedConflict() async throws {
        let fixture = try await StoreFixture.make()
        _ = try await fixture.store.append(app: "app", stream: "s", events: [event("a")])
        await #expect(throws: EventStoreError.versionConflict(appID: "app", streamID: "s", expected: .noStream, actual: 1)) {
            try await fixture.store.append(app: "app", stream: "s", expected: .noStream, events: [event("b")])
        }
        await #expect(throws: EventStoreError.versionConflict(appID: "app", streamID: "s", expected: .exact(5), actual: 1)) {
            try await fixture.store.append(app: "app", stream: "s", expected: .exact(5), events: [event("b")])
        }
        await fixture.close()
    }

    @Test func sixteenWritersExpectingTheSameVersionOnlyOneWins() async throws {
        let fixture = try await StoreFixture.make()
        _ = try await fixture.store.append(app: "app", stream: "s", events: [event("seed")])
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for writer in 0..<16 {
                group.addTask {
                    do {
                        _ = try await fixture.store.append(app: "app", stream: "s", expected: .exact(1), events: [event("w\(writer)")])
                        return true
                    } catch let error as EventStoreError {
                        if case .versionConflict = error { return false }
                        Issue.record("unexpected \(error)")
                        return false
                    } catch {
                        Issue.record("unexpected \(error)")
                        return false
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        let events = try await fixture.store.readStream(app: "app", stream: "s")
        #expect(events.map(\.streamVersion) == [1, 2])
        await fixture.close()
    }

    @Test func eightWritersWithTheSameKeyAppendOnceAndAllGetItsPosition() async throws {
        let fixture = try await StoreFixture.make()
        let results = try await withThrowingTaskGroup(of: AppendResult.self) { group in
            for _ in 0..<8 {
                group.addTask { try await fixture.store.append(app: "app", stream: "s", events: [event("same-key")]) }
            }
            return try await group.reduce(into: [AppendResult]()) { $0.append($1) }
        }
        #expect(Set(results.flatMap(\.positions)).count == 1)
        #expect(results.filter { !$0.isDuplicate }.count == 1)
        let count = try await fixture.superuser.query("SELECT count(*) FROM ledger.events").first?.decode(Int64.self, at: 0)
        #expect(count == 1)
        await fixture.close()
    }

    @Test func aRetriedBatchReturnsTheOriginalPositions() async throws {
        let fixture = try await StoreFixture.make()
        let first = try await fixture.store.append(app: "app", stream: "s", expected: .noStream, events: [event("a"), event("b")])
        // A retry of the same request (even with its now-stale expected version) is answered, not refused.
        let retry = try await fixture.store.append(app: "app", stream: "s", expected: .noStream, events: [event("a"), event("b")])
        #expect(retry.isDuplicate)
        #expect(retry.positions == first.positions)
        await fixture.close()
    }

    /// The service's connections keep generic plans (LedgerDatabase.open says why).
    @Test(.disabled(if: CitusTestCluster.isActive, "on Citus the planner chooses (LedgerDatabase.open)")) func theServicePoolKeepsGenericPlans()
        async throws
    {
        let fixture = try await StoreFixture.make()
        for _ in 0..<3 {
            let mode = try await fixture.store.pool.query("SELECT current_setting('plan_cache_mode')").first?.decode(String.self, at: 0)
            #expect(mode == "force_generic_plan")
        }
        await fixture.close()
    }

    @Test func rejectsBadInputWithMessagesThatSayWhatToFix() async throws {
        let fixture = try await StoreFixture.make()
        await #expect(throws: EventStoreError.self) { try await fixture.store.append(app: "", stream: "s", events: [event("a")]) }
        await #expect(throws: EventStoreError.self) { try await fixture.store.append(app: "a\u{0}b", stream: "s", events: [event("a")]) }
        await #expect(throws: EventStoreError.self) { try await fixture.store.append(app: "app", stream: "s", events: [event("a"), event("a")]) }
        await #expect(throws: EventStoreError.self) {
            try await fixture.store.append(
                app: "app", stream: "s",
                events: [
                    event(
                        "a",
                        payload: "{not json")
                ])
        }
        await #expect(throws: EventStoreError.self) {
            try await fixture.store.append(
                app: "app", stream: "s",
                events: [
                    event(
                        "a",
                        payload: #"{"x": "\u0000"}"#)
                ])
        }
        await #expect(throws: EventStoreError.self) { try await fixture.store.append(app: "app", stream: "s", events: []) }
        // Injection strings are data, never SQL.
        let hostile = "'; DROP TABLE ledger.events; --"
        let result = try await fixture.store.append(app: hostile, stream: hostile, events: [event(hostile, type: hostile)])
        #expect(result.appendedCount == 1)
        #expect(try await fixture.store.readStream(app: hostile, stream: hostile).first?.type == hostile)
        await fixture.close()
    }
}
