import LedgerStore
import Testing

@Suite struct GroupCommitQueueTests {
    typealias Queue = GroupCommitQueue<String>

    /// The queue, in a class: `#expect` cannot call a mutating method on a local variable.
    final class Driver {
        var queue: Queue
        init(groups: Int = 1, appends: Int = 64, events: Int = 5_000, linger: Duration = .zero) {
            queue = Queue(limits: GroupCommitLimits(maximumGroups: groups, maximumAppends: appends, maximumEvents: events, linger: linger))
        }
        func submit(_ item: String, streams: [(app: String, stream: String)], events: Int) -> Bool {
            queue.submit(item, streams: streams, events: events)
        }
        func submit(_ item: String, app: String) -> Bool { queue.submit(item, app: app) }
        func next(after group: Queue.Group?) -> Queue.Group? { queue.next(after: group) }
        func beginLinger(after group: Queue.Group?) -> Int? { queue.beginLinger(after: group) }
        func endLinger() { queue.endLinger() }
        var lingeringCount: Int { queue.lingeringCount }
        var committerCount: Int { queue.committerCount }
        var waitingCount: Int { queue.waitingCount }
    }

    static func queue(groups: Int = 1, appends: Int = 64, events: Int = 5_000, linger: Duration = .zero) -> Driver {
        Driver(groups: groups, appends: appends, events: events, linger: linger)
    }

    /// Closed-loop writers: after a group with company, the committer lingers for as many appends as it had, and
    /// while it lingers an arrival joins it instead of starting a committer that would take it alone.
    @Test func aCommitterLingersAfterAGroupWithCompanyAndArrivalsJoinIt() {
        let queue = Self.queue(groups: 2, linger: .microseconds(300))
        #expect(queue.submit("lone", streams: [("app", "l")], events: 1))
        let lone = queue.next(after: nil)
        #expect(queue.beginLinger(after: lone) == nil)  // a lone writer never waits
        #expect(queue.next(after: lone) == nil)
        #expect(queue.submit("a", streams: [("app", "a")], events: 1))
        #expect(queue.submit("b", streams: [("app", "b")], events: 1))  // a second committer, for a second core
        #expect(!queue.submit("c", streams: [("app", "c")], events: 1))
        let three = queue.next(after: nil)
        #expect(three?.items == ["a", "b", "c"])
        #expect(queue.next(after: nil) == nil)  // the second committer found nothing and stopped
        #expect(queue.committerCount == 1)
        // Decided before the three are answered, so that they find the committer lingering when they come back.
        #expect(queue.beginLinger(after: three) == 3)
        #expect(queue.lingeringCount == 1)
        // Arrivals while it lingers start no committer that would take one of them alone.
        #expect(!queue.submit("a2", streams: [("app", "a")], events: 1))
        #expect(!queue.submit("b2", streams: [("app", "b")], events: 1))
        #expect(queue.committerCount == 1)
        queue.endLinger()  // the deadline: c has not come back
        #expect(queue.lingeringCount == 0)
        let next = queue.next(after: three)
        #expect(next?.items == ["a2", "b2"])
        // As many as the last group wait already: no linger.
        _ = queue.submit("a3", streams: [("app", "a")], events: 1)
        _ = queue.submit("b3", streams: [("app", "b")], events: 1)
        #expect(queue.beginLinger(after: next) == nil)
    }

    /// Reads (`StatusReadBatcher`) have no streams: everything waiting goes in the next batch, up to the limit, apps
    /// mixed, and at most `maximumGroups` readers run.
    @Test func itemsWithoutStreamsAllJoinTheNextGroupUpToTheLimit() {
        let queue = Self.queue(groups: 2, appends: 3, events: 3)
        #expect(queue.submit("r1", app: "app1"))
        #expect(queue.submit("r2", app: "app2"))
        for read in ["r3", "r4", "r5", "r6"] { #expect(!queue.submit(read, app: "app1")) }
        let first = queue.next(after: nil)
        #expect(first?.items == ["r1", "r2", "r3"])
        #expect(queue.next(after: nil)?.items == ["r4", "r5", "r6"])
        #expect(queue.next(after: first) == nil)
        #expect(queue.committerCount == 1)
    }

    @Test func noLingerWhenItIsZero() {
        let queue = Self.queue(groups: 1)
        _ = queue.submit("a", streams: [("app", "a")], events: 1)
        _ = queue.submit("b", streams: [("app", "b")], events: 1)
        let pair = queue.next(after: nil)
        #expect(pair?.items.count == 2)
        #expect(queue.beginLinger(after: pair) == nil)
    }

    @Test func aLoneAppendStartsACommitterAtOnceAndLaterOnesJoinItsNextGroup() {
        let queue = Self.queue()
        #expect(queue.submit("a", streams: [("app", "s1")], events: 1))
        let first = queue.next(after: nil)
        #expect(first?.items == ["a"])
        // While "a" commits, the committer is busy: the next appends wait, and go together, in arrival order.
        #expect(!queue.submit("b", streams: [("app", "s2")], events: 1))
        #expect(!queue.submit("c", streams: [("other", "s2")], events: 1))
        let second = queue.next(after: first)
        #expect(second?.items == ["b", "c"])
        #expect(queue.next(after: second) == nil)
        #expect(queue.committerCount == 0)
        // Idle again: the next append starts a committer.
        #expect(queue.submit("d", streams: [("app", "s1")], events: 1))
    }

    @Test func appendsToOneStreamShareAGroupInOrder() {
        let queue = Self.queue()
        #expect(queue.submit("a", streams: [("app", "s")], events: 1))
        #expect(!queue.submit("b", streams: [("app", "s")], events: 1))
        #expect(queue.next(after: nil)?.items == ["a", "b"])
    }

    /// A stream that one committer writes is left out of another's group until that group ends, and so is every
    /// later append to it (it would overtake the one left waiting).
    @Test func aStreamBeingCommittedWaitsForItsGroupToEnd() {
        let queue = Self.queue(groups: 2)
        #expect(queue.submit("a1", streams: [("app", "a")], events: 1))
        let first = queue.next(after: nil)
        #expect(first?.items == ["a1"])
        #expect(queue.submit("a2", streams: [("app", "a")], events: 1))
        #expect(!queue.submit("b1", streams: [("app", "b")], events: 1))
        #expect(!queue.submit("a3", streams: [("app", "a")], events: 1))
        let second = queue.next(after: nil)
        #expect(second?.items == ["b1"])
        #expect(queue.next(after: second) == nil)  // what is left belongs to the stream the first committer writes
        #expect(queue.committerCount == 1)
        #expect(queue.next(after: first)?.items == ["a2", "a3"])
    }

    @Test func groupsKeepToTheLimitsAndAnOversizedAppendCommitsAlone() {
        let queue = Self.queue(appends: 2, events: 10)
        #expect(queue.submit("big", streams: [("app", "big")], events: 50))
        for name in ["a", "b", "c", "d", "e"] { _ = queue.submit(name, streams: [("app", name)], events: 4) }
        let big = queue.next(after: nil)
        #expect(big?.items == ["big"])
        let first = queue.next(after: big)
        #expect(first?.items == ["a", "b"])
        let second = queue.next(after: first)
        #expect(second?.items == ["c", "d"])
        #expect(queue.next(after: second)?.items == ["e"])
    }

    /// An append left out for a limit keeps its place: a later, smaller append to its stream does not overtake it.
    @Test func anAppendLeftOutForALimitIsNotOvertakenOnItsStream() {
        let queue = Self.queue(events: 10)
        #expect(queue.submit("a", streams: [("app", "a")], events: 8))
        _ = queue.submit("s-large", streams: [("app", "s")], events: 5)
        _ = queue.submit("s-small", streams: [("app", "s")], events: 1)
        _ = queue.submit("t", streams: [("app", "t")], events: 2)
        let first = queue.next(after: nil)
        #expect(first?.items == ["a", "t"])
        #expect(queue.next(after: first)?.items == ["s-large", "s-small"])
    }

    /// Whatever the interleaving: every append is taken exactly once; appends to a stream are taken in submission
    /// order; no stream is in two groups that commit at once; no more committers run than allowed; and whenever
    /// appends wait, some committer is running to take them.
    @Test(arguments: 1...20 as ClosedRange<UInt64>)
    func everyAppendIsTakenOnceInStreamOrder(seed: UInt64) {
        var random = RandomHistoryTests.SeededGenerator(state: seed)
        let groups = Int.random(in: 1...3, using: &random)
        let linger: Duration = Bool.random(using: &random) ? .microseconds(300) : .zero
        let queue = Self.queue(
            groups: groups, appends: Int.random(in: 1...4, using: &random), events: Int.random(in: 1...6, using: &random),
            linger: linger)
        var lingering: Set<Int> = []
        var streamOf: [String: String] = [:]
        var submitted: [String: [String]] = [:]
        var taken: [String: [String]] = [:]
        var running: [Int: Queue.Group?] = [:]  // committer id -> its group (nil before its first)
        var nextCommitter = 0
        for step in 0..<400 {
            if Bool.random(using: &random) || running.isEmpty {
                let name = "e\(step)"
                let stream = "s\(Int.random(in: 0..<5, using: &random))"
                streamOf[name] = stream
                submitted[stream, default: []].append(name)
                if queue.submit(name, streams: [("app", stream)], events: Int.random(in: 1...4, using: &random)) {
                    running[nextCommitter] = .some(nil)
                    nextCommitter += 1
                }
            } else {
                let id = running.keys.sorted()[Int.random(in: 0..<running.count, using: &random)]
                let finished = running[id]!
                if lingering.remove(id) != nil {
                    queue.endLinger()
                } else if queue.beginLinger(after: finished) != nil {
                    lingering.insert(id)
                    continue
                }
                if let group = queue.next(after: finished) {
                    running[id] = group
                    for name in group.items { taken[streamOf[name]!, default: []].append(name) }
                } else {
                    running[id] = nil
                }
            }
            #expect(queue.committerCount == running.count)
            #expect(queue.lingeringCount == lingering.count)
            #expect(running.count <= groups)
            let streams = running.values.compactMap { $0 }.map { Set($0.items.map { streamOf[$0]! }) }
            for (index, a) in streams.enumerated() { for b in streams.dropFirst(index + 1) { #expect(a.isDisjoint(with: b)) } }
            if queue.waitingCount > 0 { #expect(!running.isEmpty) }
        }
        // Drain: the running committers end their lingers and take everything left.
        for _ in lingering { queue.endLinger() }
        while let id = running.keys.sorted().first {
            if let group = queue.next(after: running[id]!) {
                running[id] = group
                for name in group.items { taken[streamOf[name]!, default: []].append(name) }
            } else {
                running[id] = nil
            }
        }
        #expect(queue.waitingCount == 0)
        #expect(taken == submitted)
    }

    /// On Citus a group holds one app's appends (a transaction on two workers would commit in two phases): the first
    /// waiting append's app makes the group and the others wait, in order, for the next.
    @Test func whenGroupsMayNotSpanAppsEachGroupHoldsOneApp() {
        let queue = Self.queue(groups: 1)
        queue.queue.groupsSpanApps = false
        let appends = [("a1", "a", "s1"), ("b1", "b", "s1"), ("a2", "a", "s2"), ("b2", "b", "s2"), ("a3", "a", "s1")]
        for (item, app, stream) in appends { _ = queue.submit(item, streams: [(app, stream)], events: 1) }
        let first = queue.next(after: nil)
        #expect(first?.items == ["a1", "a2", "a3"])
        let second = queue.next(after: first)
        #expect(second?.items == ["b1", "b2"])
        #expect(queue.next(after: second) == nil)
        // The same appends where groups span apps: one group.
        let spanning = Self.queue(groups: 1)
        for (item, app, stream) in appends { _ = spanning.submit(item, streams: [(app, stream)], events: 1) }
        #expect(spanning.next(after: nil)?.items == ["a1", "b1", "a2", "b2", "a3"])
    }
}
