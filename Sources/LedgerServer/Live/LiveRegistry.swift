import LedgerStore

/// Who is connected to the live streams of this instance, and what each was last sent: a pure state machine that
/// `LiveHub` runs under a lock. It decides which users' states to read (new streams, users whose purchases changed)
/// and which streams a freshly read state goes to (those it differs for).
package struct LiveRegistry: Sendable {
    package typealias User = AppScopedID

    package enum Refusal: Error, Equatable {
        /// The key has `limit` streams open on this instance already.
        case tooManyStreams(limit: Int)
    }

    struct Stream: Sendable {
        var user: User
        var key: String
        /// The state last sent (JSON without the cursor); nil until the first snapshot.
        var sent: String?
    }

    package let limitPerKey: Int
    private var streams: [Int: Stream] = [:]
    private var perKey: [String: Int] = [:]
    /// Each connected user's purchases (original transaction ids) when last read: a change to one of them concerns
    /// the user even after it was transferred away.
    private var purchases: [User: Set<String>] = [:]
    private var nextID = 0

    package init(limitPerKey: Int) { self.limitPerKey = limitPerKey }

    package var count: Int { streams.count }
    package var isEmpty: Bool { streams.isEmpty }
    package var ids: [Int] { Array(streams.keys) }

    /// The apps with a connected user, and those users.
    package var users: [String: [String]] {
        var users: [String: Set<String>] = [:]
        for stream in streams.values { users[stream.user.app, default: []].insert(stream.user.id) }
        return users.mapValues { $0.sorted() }
    }

    package func checkRoom(key: String) throws(Refusal) {
        guard perKey[key, default: 0] < limitPerKey else { throw .tooManyStreams(limit: limitPerKey) }
    }

    /// Registers a stream of `user` opened with `key`; it waits for its snapshot.
    package mutating func open(user: User, key: String) throws(Refusal) -> Int {
        try checkRoom(key: key)
        nextID += 1
        streams[nextID] = Stream(user: user, key: key, sent: nil)
        perKey[key, default: 0] += 1
        if purchases[user] == nil { purchases[user] = [] }
        return nextID
    }

    package mutating func close(_ id: Int) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        perKey[stream.key, default: 1] -= 1
        if perKey[stream.key] == 0 { perKey[stream.key] = nil }
        if !streams.values.contains(where: { $0.user == stream.user }) { purchases[stream.user] = nil }
    }

    /// The streams of `user`.
    package func streams(of user: User) -> [Int] { streams.filter { $0.value.user == user }.map(\.key).sorted() }

    /// Users with a stream still waiting for its snapshot.
    package var waitingForSnapshot: Set<User> {
        Set(streams.values.filter { $0.sent == nil }.map(\.user))
    }

    /// The connected users of `app` who held one of `keys` when last read.
    package func holders(app: String, of keys: Set<String>) -> Set<User> {
        Set(purchases.filter { $0.key.app == app && !$0.value.isDisjoint(with: keys) }.map(\.key))
    }

    /// A freshly read state of `user` (and the purchases it was read from): the streams to send it to, each with
    /// whether it is their snapshot. A stream is sent a state only if it differs from what it was last sent.
    package mutating func read(_ user: User, state: String, purchases held: Set<String>) -> [(id: Int, snapshot: Bool)] {
        guard purchases[user] != nil else { return [] }
        purchases[user] = held
        var sends: [(id: Int, snapshot: Bool)] = []
        for (id, stream) in streams where stream.user == user && stream.sent != state {
            sends.append((id, stream.sent == nil))
            streams[id]?.sent = state
        }
        return sends.sorted { $0.id < $1.id }
    }
}
