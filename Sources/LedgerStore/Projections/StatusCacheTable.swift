import LedgerDomain

/// What `StatusCache` holds and decides, as a pure state machine (it runs it under a lock): the users' summaries by
/// the blind index of their id, least recently read evicted first within a byte budget, and how far the change feed
/// has followed the projections.
///
/// The promises it keeps, each tested directly (`StatusCacheTableTests`):
/// - it answers only while the feed has read the projections' frontier within `staleness` (a read without a token sees
///   a state no older than that), and only when that frontier has reached the read's token;
/// - an entry read from the database goes in only if no change was applied since the read began (`generation`): a
///   change that lands while the read is in flight can never be overwritten by what the read saw before it;
/// - the estimated bytes held never exceed the budget.
package struct StatusCacheTable: Sendable {
    package struct Key: Hashable, Sendable {
        package var app: String
        package var userIndex: [UInt8]

        package init(app: String, userIndex: [UInt8]) {
            self.app = app
            self.userIndex = userIndex
        }
    }

    /// A user (pseudonym) or a purchase (original transaction id) of an app, as the change feed names them.
    package typealias Name = AppScopedID

    package enum Lookup: Equatable, Sendable {
        case hit(OwnedSummaries)
        /// Not held (or not servable): read the database, then `insert` with this generation.
        case miss(generation: UInt64)
        /// The read's token is ahead of what the feed has followed: wake it and wait, or read the database.
        case behind(generation: UInt64)
    }

    /// One entry's node in the recency list (slots are reused; `previous`/`next` are slot numbers, -1 for none).
    private struct Node: Sendable {
        var key: Key
        var owned: OwnedSummaries
        var owner: Name
        var held: [Name]
        var bytes: Int
        var lastRead: ContinuousClock.Instant
        var previous: Int
        var next: Int
    }

    package let budget: Int
    package let staleness: Duration
    private var nodes: [Node?] = []
    private var free: [Int] = []
    private var slots: [Key: Int] = [:]
    private var byOwner: [Name: Int] = [:]
    private var byPurchase: [Name: Set<Int>] = [:]
    /// Most and least recently read.
    private var head = -1
    private var tail = -1
    package private(set) var bytes = 0
    /// Bumped by every change applied and every entry dropped: an insert from an older read is refused.
    package private(set) var generation: UInt64 = 0
    /// How far the feed has applied the projections' changes, and when it read that frontier.
    package private(set) var frontier: LogCheckpoint?
    package private(set) var frontierReadAt: ContinuousClock.Instant?

    /// `budget`: estimated bytes at most (`estimatedBytes`); `staleness`: how old the feed's last look may be.
    package init(budget: Int, staleness: Duration) {
        self.budget = budget
        self.staleness = staleness
    }

    package var count: Int { slots.count }

    /// The entry for `key` if it may answer a read at `now` that carries `token`.
    package mutating func lookup(_ key: Key, token: LogCheckpoint?, now: ContinuousClock.Instant) -> Lookup {
        // Before the first look nothing is answered, and there is no look to wait for (a cache whose loop is not
        // running, as in most tests): the database answers at once.
        if let token, let frontier, frontier < token { return .behind(generation: generation) }
        guard let readAt = frontierReadAt, now - readAt <= staleness, let slot = slots[key], let node = nodes[slot] else {
            return .miss(generation: generation)
        }
        moveToFront(slot)
        nodes[slot]?.lastRead = now
        return .hit(node.owned)
    }

    /// Keeps what a database read that began at `generation` found, unless a change was applied since (or the user
    /// is unknown: an unknown user has no pseudonym yet for the feed to name). Whether it was kept.
    @discardableResult
    package mutating func insert(
        _ key: Key, _ owned: OwnedSummaries, generation readGeneration: UInt64, now: ContinuousClock.Instant = .now
    ) -> Bool {
        guard readGeneration == generation, let owner = owned.owner else { return false }
        let size = Self.estimatedBytes(key, owned)
        guard size <= budget else { return false }
        if let slot = slots[key] { remove(slot) }
        let held = Set(owned.subscriptions.map(\.originalTransactionID) + owned.purchases.map(\.originalTransactionID))
        let node = Node(
            key: key, owned: owned, owner: Name(app: key.app, id: owner), held: held.map { Name(app: key.app, id: $0) },
            bytes: size, lastRead: now, previous: -1, next: head)
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        if head >= 0 { nodes[head]?.previous = slot }
        head = slot
        if tail < 0 { tail = slot }
        slots[key] = slot
        if let previous = byOwner.updateValue(slot, forKey: node.owner), previous != slot { remove(previous) }
        for purchase in node.held { byPurchase[purchase, default: []].insert(slot) }
        bytes += size
        while bytes > budget, tail >= 0 { remove(tail) }
        return true
    }

    /// The feed read `frontier` at `readAt` and found these changes since its last frontier: users whose own stream
    /// changed or who own a changed purchase now, and the changed purchases (whose holders in the cache are dropped).
    package mutating func advance(
        to newFrontier: LogCheckpoint, readAt: ContinuousClock.Instant, users: some Sequence<Name>, purchases: some Sequence<Name>
    ) {
        var changed = false
        for user in users {
            changed = true
            if let slot = byOwner[user] { remove(slot) }
        }
        for purchase in purchases {
            changed = true
            for slot in byPurchase[purchase] ?? [] { remove(slot) }
        }
        if changed { generation += 1 }
        frontier = newFrontier
        frontierReadAt = readAt
    }

    /// Drops everything and forgets the frontier: the feed lost track (its first look, a rebuild that moved the
    /// frontier back, more changes than it reads at once, or a notice it may have missed).
    package mutating func reset(frontier newFrontier: LogCheckpoint?, readAt: ContinuousClock.Instant?) {
        nodes.removeAll()
        free.removeAll()
        slots.removeAll()
        byOwner.removeAll()
        byPurchase.removeAll()
        (head, tail, bytes) = (-1, -1, 0)
        generation += 1
        frontier = newFrontier
        frontierReadAt = readAt
    }

    /// Drops the entries last read before `cutoff` (the least recently read are at the tail): memory held for
    /// users nobody reads any more goes back.
    package mutating func dropUnread(since cutoff: ContinuousClock.Instant) {
        while tail >= 0, let node = nodes[tail], node.lastRead < cutoff { remove(tail) }
    }

    /// Drops the user `pseudonym` of `app` (erased).
    package mutating func forget(_ user: Name) {
        generation += 1
        if let slot = byOwner[user] { remove(slot) }
    }

    /// A rough measure of what an entry holds (the summaries' strings and fixed parts, the indexes' share), so the
    /// budget bounds memory rather than a count of users whose purchases differ in number.
    package static func estimatedBytes(_ key: Key, _ owned: OwnedSummaries) -> Int {
        var total = 256 + key.app.utf8.count + key.userIndex.count
        for subscription in owned.subscriptions {
            total +=
                640 + subscription.originalTransactionID.utf8.count * 2 + (subscription.productID?.utf8.count ?? 0)
                + (subscription.ownerUserID?.utf8.count ?? 0) + subscription.productsEverPurchased.reduce(0) { $0 + 16 + $1.utf8.count }
        }
        for purchase in owned.purchases { total += 512 + purchase.originalTransactionID.utf8.count * 2 + (purchase.ownerUserID?.utf8.count ?? 0) }
        for grant in owned.grants { total += 256 + grant.grantID.utf8.count + grant.entitlementID.utf8.count + grant.reason.utf8.count }
        return total
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != head, let node = nodes[slot] else { return }
        unlink(slot, node)
        nodes[slot]?.previous = -1
        nodes[slot]?.next = head
        if head >= 0 { nodes[head]?.previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    private mutating func unlink(_ slot: Int, _ node: Node) {
        if node.previous >= 0 { nodes[node.previous]?.next = node.next } else { head = node.next }
        if node.next >= 0 { nodes[node.next]?.previous = node.previous } else { tail = node.previous }
    }

    private mutating func remove(_ slot: Int) {
        guard let node = nodes[slot] else { return }
        unlink(slot, node)
        nodes[slot] = nil
        free.append(slot)
        slots[node.key] = nil
        if byOwner[node.owner] == slot { byOwner[node.owner] = nil }
        for purchase in node.held {
            byPurchase[purchase]?.remove(slot)
            if byPurchase[purchase]?.isEmpty == true { byPurchase[purchase] = nil }
        }
        bytes -= node.bytes
    }
}
