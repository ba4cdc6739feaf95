import LedgerServer
import Testing

/// The live streams' bookkeeping, as a state machine.
@Suite struct LiveRegistryTests {
    let alice = LiveRegistry.User(app: "a", id: "alice")
    let bob = LiveRegistry.User(app: "a", id: "bob")

    @Test func aStateGoesOnlyToStreamsThatWereNotSentItAndSnapshotsComeFirst() throws {
        var registry = LiveRegistry(limitPerKey: 10)
        let first = try registry.open(user: alice, key: "k")
        #expect(registry.waitingForSnapshot == [alice])
        #expect(registry.read(alice, state: "s1", purchases: ["100"]).map(\.id) == [first])
        #expect(registry.read(alice, state: "s1", purchases: ["100"]).isEmpty, "an unchanged state is not sent again")
        let second = try registry.open(user: alice, key: "k")
        let sends = registry.read(alice, state: "s1", purchases: ["100"])
        #expect(sends.map(\.id) == [second] && sends[0].snapshot)
        let change = registry.read(alice, state: "s2", purchases: ["100", "200"])
        #expect(change.map(\.id) == [first, second] && change.allSatisfy { !$0.snapshot })
        #expect(registry.holders(app: "a", of: ["200"]) == [alice])
        #expect(registry.holders(app: "other", of: ["200"]).isEmpty)
        #expect(registry.read(bob, state: "s", purchases: []).isEmpty, "nobody listens to bob")
        #expect(registry.users == ["a": ["alice"]])
    }

    @Test func theLimitIsPerKeyAndClosingFreesRoom() throws {
        var registry = LiveRegistry(limitPerKey: 2)
        let one = try registry.open(user: alice, key: "k")
        _ = try registry.open(user: bob, key: "k")
        #expect(throws: LiveRegistry.Refusal.tooManyStreams(limit: 2)) { try registry.open(user: alice, key: "k") }
        _ = try registry.open(user: alice, key: "other")
        registry.close(one)
        registry.close(one)
        _ = try registry.open(user: alice, key: "k")
        #expect(registry.count == 3)
    }

    @Test func theCursorRoundTripsAndForgeriesAreRejected() {
        let checkpoint = LogCheckpointSample.value
        #expect(LiveHub.checkpoint(cursor: LiveHub.cursor(checkpoint)) == checkpoint)
        for bad in ["", "1", "1-", "-1", "a-1", "1-2-3", "1--2", "18446744073709551616-1"] {
            #expect(LiveHub.checkpoint(cursor: bad) == nil, "\(bad)")
        }
    }
}

import LedgerStore

enum LogCheckpointSample {
    static let value = LogCheckpoint(transactionID: 123_456, position: 789)
}
