import Foundation
import LedgerDomain
import LedgerStore
import Testing

/// The status cache's decisions, driven directly (`StatusCacheTable`): when it may answer, what a change drops, which
/// inserts it refuses, and that it holds no more than its budget.
@Suite struct StatusCacheTableTests {
    typealias Key = StatusCacheTable.Key
    typealias Name = StatusCacheTable.Name

    static func key(_ user: String) -> Key { Key(app: "app", userIndex: Array(user.utf8)) }

    static func owned(_ user: String, purchases: [String]) -> OwnedSummaries {
        OwnedSummaries(subscriptions: purchases.map { SubscriptionSummary(originalTransactionID: $0, ownerUserID: user, productID: "monthly") })
    }

    static let start = ContinuousClock.now
    static func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }
    static func checkpoint(_ position: Int64) -> LogCheckpoint { LogCheckpoint(transactionID: UInt64(position), position: position) }

    /// A table that has looked once, at position 10, at time 0, holding alice (purchase 1) and bob (purchase 2).
    static func table(budget: Int = 1 << 20) -> StatusCacheTable {
        var table = StatusCacheTable(budget: budget, staleness: .seconds(1))
        table.advance(to: checkpoint(10), readAt: at(0), users: [], purchases: [])
        let aliceKept = table.insert(key("alice"), owned("alice", purchases: ["1"]), generation: table.generation)
        #expect(aliceKept)
        let bobKept = table.insert(key("bob"), owned("bob", purchases: ["2"]), generation: table.generation)
        #expect(bobKept)
        return table
    }

    @Test func itAnswersOnlyWhileItsLastLookIsWithinTheStalenessBound() {
        var never = StatusCacheTable(budget: 1 << 20, staleness: .seconds(1))
        never.insert(Self.key("alice"), Self.owned("alice", purchases: ["1"]), generation: never.generation)
        #expect(never.lookup(Self.key("alice"), token: nil, now: Self.at(0)) == .miss(generation: never.generation), "no look yet")
        #expect(never.lookup(Self.key("alice"), token: Self.checkpoint(1), now: Self.at(0)) == .miss(generation: never.generation))

        var table = Self.table()
        #expect(table.lookup(Self.key("alice"), token: nil, now: Self.at(1_000)) == .hit(Self.owned("alice", purchases: ["1"])))
        #expect(table.lookup(Self.key("alice"), token: nil, now: Self.at(1_001)) == .miss(generation: table.generation))
        // The next look (nothing changed) makes it answer again.
        table.advance(to: Self.checkpoint(10), readAt: Self.at(1_000), users: [], purchases: [])
        #expect(table.lookup(Self.key("alice"), token: nil, now: Self.at(1_500)) == .hit(Self.owned("alice", purchases: ["1"])))
    }

    @Test func aTokenAheadOfTheFrontierIsNeverAnsweredFromTheCache() {
        var table = Self.table()
        #expect(table.lookup(Self.key("alice"), token: Self.checkpoint(10), now: Self.at(1)) == .hit(Self.owned("alice", purchases: ["1"])))
        #expect(table.lookup(Self.key("alice"), token: Self.checkpoint(11), now: Self.at(1)) == .behind(generation: table.generation))
        #expect(
            table.lookup(Self.key("alice"), token: LogCheckpoint(transactionID: 10, position: 11), now: Self.at(1))
                == .behind(generation: table.generation), "the same transaction, a later event")
        table.advance(to: Self.checkpoint(11), readAt: Self.at(2), users: [], purchases: [])
        #expect(table.lookup(Self.key("alice"), token: Self.checkpoint(11), now: Self.at(3)) == .hit(Self.owned("alice", purchases: ["1"])))
    }

    @Test func aChangeDropsTheUserItNamesAndEveryHolderOfThePurchaseItNames() {
        var table = Self.table()
        table.insert(Self.key("carol"), Self.owned("carol", purchases: ["3"]), generation: table.generation)
        // Bob's own stream changed; purchase 1 changed (alice held it; it may have moved).
        table.advance(to: Self.checkpoint(12), readAt: Self.at(1), users: [Name(app: "app", id: "bob")], purchases: [Name(app: "app", id: "1")])
        #expect(table.lookup(Self.key("alice"), token: nil, now: Self.at(2)) == .miss(generation: table.generation))
        #expect(table.lookup(Self.key("bob"), token: nil, now: Self.at(2)) == .miss(generation: table.generation))
        #expect(table.lookup(Self.key("carol"), token: nil, now: Self.at(2)) == .hit(Self.owned("carol", purchases: ["3"])))
        // Another app's user of the same name is another user.
        table.advance(to: Self.checkpoint(13), readAt: Self.at(3), users: [Name(app: "other", id: "carol")], purchases: [])
        #expect(table.lookup(Self.key("carol"), token: nil, now: Self.at(4)) == .hit(Self.owned("carol", purchases: ["3"])))
        #expect(table.count == 1)
    }

    @Test func whatAReadFoundIsRefusedWhenAChangeWasAppliedWhileItWasInFlight() {
        var table = Self.table()
        guard case .miss(let generation) = table.lookup(Self.key("dave"), token: nil, now: Self.at(1)) else {
            Issue.record("dave is not held")
            return
        }
        // A look that found nothing changed does not stop it.
        table.advance(to: Self.checkpoint(10), readAt: Self.at(2), users: [], purchases: [])
        let daveKept = table.insert(Self.key("dave"), Self.owned("dave", purchases: ["4"]), generation: generation)
        #expect(daveKept)
        guard case .miss(let erin) = table.lookup(Self.key("erin"), token: nil, now: Self.at(3)) else {
            Issue.record("erin is not held")
            return
        }
        // Any change does (it may concern erin, whom the cache could not name before her read answered).
        table.advance(to: Self.checkpoint(14), readAt: Self.at(4), users: [Name(app: "app", id: "someone")], purchases: [])
        let erinKept = table.insert(Self.key("erin"), Self.owned("erin", purchases: ["5"]), generation: erin)
        #expect(!erinKept)
        #expect(table.lookup(Self.key("erin"), token: nil, now: Self.at(5)) == .miss(generation: table.generation))
        // So do an erasure and a reset.
        let before = table.generation
        table.forget(Name(app: "app", id: "dave"))
        #expect(table.lookup(Self.key("dave"), token: nil, now: Self.at(5)) == .miss(generation: table.generation))
        let staleDaveKept = table.insert(Self.key("dave"), Self.owned("dave", purchases: ["4"]), generation: before)
        #expect(!staleDaveKept)
        table.reset(frontier: nil, readAt: nil)
        #expect(table.count == 0 && table.bytes == 0)
        #expect(table.lookup(Self.key("alice"), token: nil, now: Self.at(5)) == .miss(generation: table.generation))
    }

    @Test func entriesNobodyReadsAreDroppedAfterTheirIdleLifetime() {
        var table = StatusCacheTable(budget: 1 << 20, staleness: .seconds(3600))
        table.advance(to: Self.checkpoint(1), readAt: Self.at(0), users: [], purchases: [])
        for (n, user) in ["alice", "bob", "carol"].enumerated() {
            let kept = table.insert(Self.key(user), Self.owned(user, purchases: ["\(n)"]), generation: table.generation, now: Self.at(n * 1_000))
            #expect(kept)
        }
        _ = table.lookup(Self.key("alice"), token: nil, now: Self.at(5_000))
        table.dropUnread(since: Self.at(2_000))
        #expect(table.count == 2)
        #expect(table.lookup(Self.key("bob"), token: nil, now: Self.at(6_000)) == .miss(generation: table.generation))
        #expect(table.lookup(Self.key("alice"), token: nil, now: Self.at(6_000)) == .hit(Self.owned("alice", purchases: ["0"])))
        #expect(table.lookup(Self.key("carol"), token: nil, now: Self.at(6_000)) == .hit(Self.owned("carol", purchases: ["2"])))
        table.dropUnread(since: Self.at(7_000))
        #expect(table.count == 0 && table.bytes == 0)
    }

    @Test func anUnknownUserIsNeverHeld() {
        var table = Self.table()
        let nobodyKept = table.insert(Self.key("nobody"), OwnedSummaries(), generation: table.generation)
        #expect(!nobodyKept)
    }

    @Test func itHoldsNoMoreThanItsBudgetAndEvictsTheLeastRecentlyReadFirst() {
        let one = StatusCacheTable.estimatedBytes(Self.key("user-00"), Self.owned("user-00", purchases: ["p-00"]))
        var table = StatusCacheTable(budget: one * 10, staleness: .seconds(1))
        table.advance(to: Self.checkpoint(1), readAt: Self.at(0), users: [], purchases: [])
        let users = (0..<100).map { String(format: "user-%02d", $0) }
        for (n, user) in users.enumerated() {
            let kept = table.insert(Self.key(user), Self.owned(user, purchases: [String(format: "p-%02d", n)]), generation: table.generation)
            #expect(kept)
            #expect(table.bytes <= table.budget)
            // user-00 is read after every insert: it stays while the others come and go.
            #expect(table.lookup(Self.key("user-00"), token: nil, now: Self.at(1)) == .hit(Self.owned("user-00", purchases: ["p-00"])))
        }
        #expect(table.count == 10)
        let held = users.filter { if case .hit = table.lookup(Self.key($0), token: nil, now: Self.at(1)) { true } else { false } }
        #expect(held == ["user-00"] + users.suffix(9))
        // An evicted user's purchase changing touches nothing left.
        table.advance(to: Self.checkpoint(2), readAt: Self.at(2), users: [], purchases: [Name(app: "app", id: "p-05")])
        #expect(table.count == 10)
        // One entry larger than the whole budget is not held at all.
        let large = Self.owned("large", purchases: (0..<100).map { "big-\($0)" })
        let largeKept = table.insert(Self.key("large"), large, generation: table.generation)
        #expect(!largeKept)
        #expect(table.count == 10 && table.bytes <= table.budget)
    }
}
