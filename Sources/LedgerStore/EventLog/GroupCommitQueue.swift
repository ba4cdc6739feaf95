/// Which waiting appends commit together (group commit). A pure state machine, tested directly; `GroupCommitter`
/// runs it, and `StatusReadBatcher` runs it for status reads (items without streams: a read joins the next batch).
///
/// Appends wait in arrival order. A committer (at most `maximumGroups` of them, each on its own connection) takes
/// everything then waiting as one group right before it runs it, and takes again after each group until nothing it
/// can take is left: appends that arrive while a group commits go together in the next, and a lone append never
/// waits for company. Appends to one stream keep their order: in one group they run one after another, and a stream
/// that a committing group writes is left out of every other group until that one ends (two groups would race for
/// its next version and one would have to run again).
///
/// A committer may linger before it takes a group (`limits.linger`, like PostgreSQL's `commit_delay`): when the
/// group it just committed had company and fewer appends wait now, the writers it has just answered are most likely
/// about to send their next ones. Without it, closed-loop writers alternate a group of one (the first back) with a
/// group of the rest: 1.8 appends per group with four writers, where four per group commit at the rate of single
/// inserts. A lone writer never lingers (its groups have no company), and a linger ends as soon as enough wait.
///
/// On Citus (`groupsSpanApps` false) a group holds one app's appends: apps live on different workers, and a
/// transaction that writes on two workers commits in two phases, after the coordinator, which the projections' horizon
/// cannot see (Deploy/SCALE-OUT.md, "the log's order"). The first waiting append's app makes the group; appends of
/// other apps wait for the next.
package struct GroupCommitQueue<Item: Sendable>: Sendable {
    /// Appends to commit in one transaction, in arrival order; hand it back to `next(after:)` when it has ended.
    package struct Group: Sendable {
        package var items: [Item]
        fileprivate var streams: Set<String>
    }

    private struct Waiting: Sendable {
        var item: Item
        var app: String
        /// Each stream as `app` NUL `stream`.
        var streams: [String]
        var events: Int
    }

    package let limits: GroupCommitLimits
    private var waiting: [Waiting] = []
    private var committingStreams: Set<String> = []
    private var committers = 0
    private var lingering = 0

    /// Whether one group may hold appends of several apps (false on Citus; set once the committer knows the database).
    package var groupsSpanApps = true

    package init(limits: GroupCommitLimits) { self.limits = limits }

    /// Appends waiting for a group.
    package var waitingCount: Int { waiting.count }

    /// Committers running (each holds a connection).
    package var committerCount: Int { committers }

    /// Committers lingering for appends to arrive (an arrival should wake them).
    package var lingeringCount: Int { lingering }

    /// A new append of `events` events to `streams` (app and stream pairs, all of one app). True when a committer must
    /// be started for it (none is free to take it).
    package mutating func submit(_ item: Item, streams: [(app: String, stream: String)], events: Int) -> Bool {
        enqueue(Waiting(item: item, app: streams.first?.app ?? "", streams: streams.map { $0.app + "\u{0}" + $0.stream }, events: events))
    }

    /// A new item that writes no stream (a read, `StatusReadBatcher`): it counts toward the limits as `events` and
    /// waits for nothing but a free taker. True when a taker must be started for it.
    package mutating func submit(_ item: Item, app: String, events: Int = 1) -> Bool {
        enqueue(Waiting(item: item, app: app, streams: [], events: events))
    }

    private mutating func enqueue(_ entry: Waiting) -> Bool {
        waiting.append(entry)
        // A lingering committer takes it: another started now would take it alone.
        guard committers < limits.maximumGroups, lingering == 0 else { return false }
        committers += 1
        return true
    }

    /// Before taking its next group, after `finished`: how many waiting appends to linger for (then call
    /// `endLinger`), or nil to take at once. Lingers only when `finished` had company and fewer appends wait now.
    package mutating func beginLinger(after finished: Group?) -> Int? {
        guard limits.linger > .zero, let finished, finished.items.count > 1, waiting.count < finished.items.count else { return nil }
        lingering += 1
        return finished.items.count
    }

    package mutating func endLinger() { lingering -= 1 }

    /// A committer's next group, after it ended `finished` (nil for its first). Nil when nothing it can take is
    /// waiting: the committer then stops (and a later `submit` starts one again).
    package mutating func next(after finished: Group?) -> Group? {
        if let finished { committingStreams.subtract(finished.streams) }
        guard let group = nextGroup() else {
            committers -= 1
            return nil
        }
        committingStreams.formUnion(group.streams)
        return group
    }

    /// The waiting appends, in arrival order, that fit the limits and touch no stream of a committing group, nor of
    /// an earlier append left waiting (which would be overtaken); of the first one's app only, unless groups span apps.
    private mutating func nextGroup() -> Group? {
        var group = Group(items: [], streams: [])
        var events = 0
        var app: String?
        var left: [Waiting] = []
        var leftStreams: Set<String> = []
        for entry in waiting {
            let full = group.items.count == limits.maximumAppends || (!group.items.isEmpty && events + entry.events > limits.maximumEvents)
            let otherApp = !groupsSpanApps && app != nil && entry.app != app
            if full || otherApp || entry.streams.contains(where: { committingStreams.contains($0) || leftStreams.contains($0) }) {
                left.append(entry)
                leftStreams.formUnion(entry.streams)
                continue
            }
            app = entry.app
            group.items.append(entry.item)
            group.streams.formUnion(entry.streams)
            events += entry.events
        }
        guard !group.items.isEmpty else { return nil }
        waiting = left
        return group
    }
}

/// How much group commit puts together (`EventStore.defaultGroupCommit`).
public struct GroupCommitLimits: Sendable, Equatable {
    /// Groups committing at once (each holds one pooled connection).
    public var maximumGroups: Int
    /// Appends in one group.
    public var maximumAppends: Int
    /// Events in one group; an append larger than this still commits, alone.
    public var maximumEvents: Int
    /// How long a committer waits at most for the writers it has just answered (`GroupCommitQueue`); zero: never.
    public var linger: Duration

    public init(maximumGroups: Int, maximumAppends: Int, maximumEvents: Int, linger: Duration = .zero) {
        self.maximumGroups = max(1, maximumGroups)
        self.maximumAppends = max(1, maximumAppends)
        self.maximumEvents = max(1, maximumEvents)
        self.linger = max(.zero, linger)
    }
}
