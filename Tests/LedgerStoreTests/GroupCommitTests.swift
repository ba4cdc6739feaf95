import Dispatch
import LedgerDomain
import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import Testing
import Tracing

/// Group commit through `EventStore`: appends that wait while the database is busy commit in one transaction, and
/// each keeps its own idempotency, expected version and error.
@Suite struct GroupCommitTests {
    /// An event store on a pool of one connection with one committer, whose connection the test holds until every
    /// append has been submitted: the committer then takes them all as one group.
    struct HeldStore {
        let store: EventStore
        let pool: PostgresPool
        let gate = DispatchSemaphore(value: 0)

        init(fixture: StoreFixture) {
            pool = PostgresPool(configuration: PostgresConfiguration(connectionString: fixture.connectionString), size: 1)
            store = EventStore(pool: pool, groupCommit: GroupCommitLimits(maximumGroups: 1, maximumAppends: 64, maximumEvents: 5_000))
        }

        /// Runs `appends` concurrently while the only connection is held, releases it once all of them wait, and
        /// answers their results in the order given. `traced`: each append inside a span of its own (`request N`).
        func appendTogether(
            _ appends: [(app: String, append: EventStore.StreamAppend)], traced: Bool = false
        ) async throws -> [Result<AppendResult, any Error>] {
            let (held, holding) = AsyncStream<Void>.makeStream()
            let holder = Task { [pool, gate] in
                try await pool.withConnection { _ in
                    holding.yield()
                    gate.wait()
                }
            }
            for await _ in held { break }
            let results = try await withThrowingTaskGroup(of: (Int, Result<AppendResult, any Error>).self) { group in
                for (index, request) in appends.enumerated() {
                    group.addTask { [store] in
                        guard traced else { return (index, try await store.appendEach(app: request.app, [request.append])[0]) }
                        return try await withSpan("request \(index)") { _ in
                            (index, try await store.appendEach(app: request.app, [request.append])[0])
                        }
                    }
                }
                while store.committer.waitingCount < appends.count { await Task.yield() }
                gate.signal()
                var results: [Int: Result<AppendResult, any Error>] = [:]
                for try await (index, result) in group { results[index] = result }
                return appends.indices.map { results[$0]! }
            }
            try await holder.value
            return results
        }
    }

    static func transactionIDs(_ fixture: StoreFixture, app: String) async throws -> [String: String] {
        var ids: [String: String] = [:]
        for row in try await fixture.superuser.query(
            "SELECT idempotency_key, transaction_id::text FROM ledger.events WHERE app_id = \(app)")
        {
            ids[try row.decode(String.self, at: 0)] = try row.decode(String.self, at: 1)
        }
        return ids
    }

    @Test func waitingAppendsCommitTogetherAndEachKeepsItsOwnOutcome() async throws {
        let fixture = try await StoreFixture.make()
        let seeded = try await fixture.store.append(app: "g", stream: "seeded", events: [event("known")])
        let held = HeldStore(fixture: fixture)
        let results = try await held.appendTogether([
            ("g", .init(streamID: "a", expected: .noStream, events: [event("a1")])),
            ("g", .init(streamID: "seeded", expected: .noStream, events: [event("refused")])),
            ("g", .init(streamID: "seeded", expected: .any, events: [event("known")])),
            ("h", .init(streamID: "b", expected: .any, events: [event("b1"), event("b2")])),
            ("g", .init(streamID: "a", expected: .exact(1), events: [event("a2")]))
        ])
        let first = try results[0].get()
        #expect(first.appendedCount == 1 && first.streamVersion == 1)
        #expect(throws: EventStoreError.versionConflict(appID: "g", streamID: "seeded", expected: .noStream, actual: 1)) { try results[1].get() }
        let duplicate = try results[2].get()
        #expect(duplicate.isDuplicate && duplicate.positions == seeded.positions)
        #expect(try results[3].get().appendedCount == 2)
        // An append to a stream earlier in the same group sees that one's event.
        let second = try results[4].get()
        #expect(second.streamVersion == 2)
        // One transaction for the whole group, another than the seeded event's; on Citus one per app (each app's
        // appends commit on its own worker: GroupCommitQueue).
        let g = try await Self.transactionIDs(fixture, app: "g")
        let h = try await Self.transactionIDs(fixture, app: "h")
        #expect(Set([g["a1"], g["a2"], h["b1"], h["b2"]]).count == (CitusTestCluster.isActive ? 2 : 1))
        #expect(g["a1"] == g["a2"] && h["b1"] == h["b2"])
        #expect(g["a1"] != g["known"])
        #expect(g["refused"] == nil)
        // The chain still links the stream's events.
        let stream = try await fixture.store.readStream(app: "g", stream: "a")
        #expect(stream.map(\.idempotencyKey) == ["a1", "a2"])
        #expect(stream[1].previousHash == stream[0].hash)
        await held.pool.shutdown()
        await fixture.close()
    }

    /// A value PostgreSQL refuses aborts the group's statement; the appends then run one by one, and only the
    /// append that carried it fails.
    @Test func oneBadAppendInAGroupFailsAlone() async throws {
        let fixture = try await StoreFixture.make()
        let held = HeldStore(fixture: fixture)
        let results = try await held.appendTogether([
            ("g", .init(streamID: "a", expected: .any, events: [event("a1")])),
            ("g", .init(streamID: "bad", expected: .any, events: [event("bad", payload: "{not json")])),
            ("g", .init(streamID: "c", expected: .any, events: [event("c1")]))
        ])
        #expect(try results[0].get().appendedCount == 1)
        #expect(try results[2].get().appendedCount == 1)
        #expect {
            try results[1].get()
        } throws: { error in
            guard case EventStoreError.invalidEvent(let message) = error else { return false }
            return message.contains("PostgreSQL refused the event")
        }
        let ids = try await Self.transactionIDs(fixture, app: "g")
        #expect(ids.keys.sorted() == ["a1", "c1"])
        await held.pool.shutdown()
        await fixture.close()
    }

    /// Many writers at once through the default limits (two committers): every append is recorded once, each
    /// writer's duplicate answers the original positions, and no stream loses or reorders an event.
    @Test func concurrentWritersThroughGroupCommitEachRecordOnce() async throws {
        let fixture = try await StoreFixture.make()
        let store = fixture.store
        let writers = 24
        let positions = try await withThrowingTaskGroup(of: (Int, [Int64], [Int64]).self) { group in
            for writer in 0..<writers {
                group.addTask {
                    var first: [Int64] = []
                    for n in 0..<5 {
                        first += try await store.append(app: "w", stream: "s\(writer % 6)", events: [event("w\(writer)-\(n)")]).positions
                    }
                    let again = try await store.append(app: "w", stream: "s\(writer % 6)", events: [event("w\(writer)-0")]).positions
                    return (writer, first, again)
                }
            }
            var all: [(Int, [Int64], [Int64])] = []
            for try await result in group { all.append(result) }
            return all
        }
        for (_, first, again) in positions { #expect(again == [first[0]]) }
        for stream in 0..<6 {
            let events = try await store.readStream(app: "w", stream: "s\(stream)")
            #expect(events.count == 5 * (writers / 6))
            #expect(events.map(\.streamVersion) == Array(1...Int64(events.count)))
            for (earlier, later) in zip(events, events.dropFirst()) { #expect(later.previousHash == earlier.hash) }
            // Each writer's own appends keep their order in its stream.
            for writer in stride(from: stream, to: writers, by: 6) {
                let mine = events.filter { $0.idempotencyKey.hasPrefix("w\(writer)-") }.map(\.idempotencyKey)
                #expect(mine == (0..<5).map { "w\(writer)-\($0)" })
            }
        }
        await fixture.close()
    }

    /// Writers in a closed loop (each appends, waits for its answer, appends again) share transactions: after a
    /// group with company the committer lingers for the writers it answered. Without the linger the first writer
    /// back may commit alone and the others after it (1.8 appends per transaction in the benchmark; 30 to 48
    /// transactions for these 120 appends in runs of this test); with a generous linger, as here, every transaction
    /// but the first one or two holds all four.
    @Test func writersInAClosedLoopShareTransactions() async throws {
        let fixture = try await StoreFixture.make()
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: fixture.connectionString), size: 2)
        let store = EventStore(
            pool: pool,
            groupCommit: GroupCommitLimits(
                maximumGroups: 2, maximumAppends: 64, maximumEvents: 5_000,
                linger: .seconds(2)))
        let writers = 4, rounds = 30
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for n in 0..<rounds { _ = try await store.append(app: "loop", stream: "s\(writer)", events: [event("l\(writer)-\(n)")]) }
                }
            }
            try await group.waitForAll()
        }
        let ids = try await Self.transactionIDs(fixture, app: "loop")
        #expect(ids.count == writers * rounds)
        let transactions = Set(ids.values).count
        #expect(transactions <= rounds + 2, "\(writers * rounds) appends in \(transactions) transactions")
        await pool.shutdown()
        await fixture.close()
    }

    /// The common group (each append to a stream of its own, keys not recorded yet, expected versions holding) is
    /// one statement (schema/034): no call of the per-append function, and the
    /// answers and the chain are the ones appending one by one gives. A group with a duplicate runs append by append.
    @Test(.disabled(if: CitusTestCluster.isActive, "on Citus a group runs append by append (GroupCommitter)"))
    func aGroupOfFreshAppendsIsOneInsertWithTheAnswersOfOneByOne() async throws {
        let fixture = try await StoreFixture.make()
        for app in ["g", "ref"] {
            _ = try await fixture.store.append(app: app, stream: "s1", events: [event("\(app)-seed1"), event("\(app)-seed2")])
        }
        @Sendable func requests(_ app: String) -> [(appID: String, append: EventStore.StreamAppend)] {
            [
                (app, .init(streamID: "s1", expected: .exact(2), events: [event("\(app)-a"), event("\(app)-b")])),
                (app, .init(streamID: "s2", expected: .noStream, events: [event("\(app)-c")])),
                (app + "-other", .init(streamID: "s1", expected: .any, events: [event("\(app)-d"), event("\(app)-e"), event("\(app)-f")]))
            ]
        }
        let perAppendFunction = "'ledger.append_events(text, text, bigint, text[], bigint[], text[], text[], text[], bigint[])'::regprocedure"
        typealias Request = (appID: String, append: EventStore.StreamAppend)
        @Sendable func grouped(_ requests: [Request]) async throws -> ([Result<AppendResult, any Error>], Int64) {
            try await fixture.superuser.withConnection { connection in
                try connection.transaction { connection in
                    try connection.execute("SET LOCAL track_functions = 'pl'")
                    // The backend's pending counts may still hold an earlier transaction's calls (flushed when idle,
                    // at most once a second): the group's calls are the difference.
                    func calls() throws -> Int64 {
                        try connection.query(
                            PostgresQuery(unsafeSQL: "SELECT coalesce(pg_stat_get_xact_function_calls(\(perAppendFunction)), 0)")
                        ).first?.decode(Int64.self, at: 0) ?? -1
                    }
                    let before = try calls()
                    let results = AppendStatements.appendGroup(on: connection, requests)
                    return (results, try calls() - before)
                }
            }
        }
        let (results, calls) = try await grouped(requests("g"))
        #expect(calls == 0)
        let reference = try await fixture.store.pool.withConnection { connection in
            requests("ref").map { request in
                Result {
                    try EventStore.append(
                        on: connection, app: request.appID, stream: request.append.streamID,
                        expected: request.append.expected, events: request.append.events)
                }
            }
        }
        for (result, expected) in zip(results, reference) {
            let (got, want) = (try result.get(), try expected.get())
            #expect(got.streamVersion == want.streamVersion && got.appendedCount == want.appendedCount && got.positions.count == want.positions.count)
        }
        // Positions in event order, one transaction, and the chain links the seeded events to the new ones.
        #expect(try results[0].get().positions == (try results[0].get().positions).sorted())
        let ids = try await Self.transactionIDs(fixture, app: "g")
        #expect(Set(["g-a", "g-b", "g-c"].map { ids[$0] }).count == 1)
        let stream = try await fixture.store.readStream(app: "g", stream: "s1")
        #expect(stream.map(\.idempotencyKey) == ["g-seed1", "g-seed2", "g-a", "g-b"])
        #expect(stream.map(\.streamVersion) == [1, 2, 3, 4])
        for (earlier, later) in zip(stream, stream.dropFirst()) { #expect(later.previousHash == earlier.hash) }
        #expect(try await fixture.store.readStream(app: "g-other", stream: "s1").map(\.streamVersion) == [1, 2, 3])

        // A duplicate in the group: append by append, and the duplicate answers its original positions.
        let (again, callsAgain) = try await grouped([
            ("g", .init(streamID: "s3", expected: .any, events: [event("g-fresh")])),
            ("g", .init(streamID: "s2", expected: .any, events: [event("g-c")]))
        ])
        #expect(callsAgain == 2)
        #expect(try again[1].get().isDuplicate && (try again[1].get().positions) == (try results[1].get().positions))
        #expect(try again[0].get().appendedCount == 1)

        // An expected version that does not hold: the set inserts none of the group (the other append is new here,
        // not a duplicate of a partial insert), and append by append only the stale one is refused.
        let (conflicted, callsConflicted) = try await grouped([
            ("g", .init(streamID: "s4", expected: .noStream, events: [event("g-s4")])),
            ("g", .init(streamID: "s1", expected: .exact(2), events: [event("g-stale")]))
        ])
        #expect(callsConflicted == 2)
        #expect(try conflicted[0].get().appendedCount == 1 && !(try conflicted[0].get().isDuplicate))
        #expect(throws: EventStoreError.self) { try conflicted[1].get() }
        #expect(try await fixture.store.readStream(app: "g", stream: "s1").count == 4)

        // Two appends to one stream in one group: append by append, in the group's order.
        let (sameStream, _) = try await grouped([
            ("g", .init(streamID: "s5", expected: .noStream, events: [event("g-s5a")])),
            ("g", .init(streamID: "s5", expected: .exact(1), events: [event("g-s5b")]))
        ])
        #expect(try sameStream.map { try $0.get().streamVersion } == [1, 2])
        #expect(try await fixture.store.readStream(app: "g", stream: "s5").map(\.idempotencyKey) == ["g-s5a", "g-s5b"])
        await fixture.close()
    }

    /// What the caller checks before it sends a group as one INSERT: the log's part (keys recorded, heads) is the
    /// statement's.
    @Test func aGroupIsOneInsertOnlyWithEventsStreamsOfItsOwnAndNoKeyTwice() {
        typealias Request = (appID: String, append: EventStore.StreamAppend)
        func request(_ app: String, _ stream: String, _ keys: [String]) -> Request {
            (app, .init(streamID: stream, expected: .any, events: keys.map { event($0) }))
        }
        #expect(AppendStatements.isCommon([request("a", "s1", ["k1", "k2"]), request("a", "s2", ["k3"]), request("b", "s1", ["k1"])]))
        #expect(!AppendStatements.isCommon([request("a", "s1", ["k1"]), request("a", "s1", ["k2"])]))
        #expect(!AppendStatements.isCommon([request("a", "s1", ["k1"]), request("a", "s2", ["k1"])]))
        #expect(!AppendStatements.isCommon([request("a", "s1", ["k1", "k1"]), request("a", "s2", ["k2"])]))
        #expect(!AppendStatements.isCommon([request("a", "s1", ["k1"]), request("a", "s2", [])]))
    }
}
