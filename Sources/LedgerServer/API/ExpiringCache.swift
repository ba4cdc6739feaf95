import UTCTime

/// Values read from the database, each kept for the time to live given when it was stored, and dropped at once by
/// `invalidate()` when the database says they changed. A pure state machine (the caller passes the time), tested directly; `TenancyCache` drives it.
///
/// A read that began before an invalidation may have read the old value, so it must not be kept: `generation`
/// is taken when the read begins, and `store` keeps the value only if no invalidation came in between.
package struct ExpiringCache<Key: Hashable, Value> {
    /// At most this many values; when full, expired ones go first, then all (a flood of distinct keys must not
    /// grow memory).
    let capacity: Int
    private var entries: [Key: (value: Value, expires: ContinuousClock.Instant)] = [:]
    /// Counts invalidations.
    package private(set) var generation: UInt64 = 0

    package init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value of `key` if it was stored less than its time to live before `now`.
    package func value(for key: Key, now: ContinuousClock.Instant) -> Value? {
        guard let entry = entries[key], now < entry.expires else { return nil }
        return entry.value
    }

    /// Keeps `value`, read by a lookup that began at `generation`, unless an invalidation came since.
    package mutating func store(
        _ value: Value, for key: Key, readAt generation: UInt64, now: ContinuousClock.Instant,
        timeToLive: Duration
    ) {
        guard generation == self.generation else { return }
        if entries.count >= capacity, entries[key] == nil {
            entries = entries.filter { now < $0.value.expires }
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        }
        entries[key] = (value, now + timeToLive)
    }

    /// Forgets every value, and any lookup still under way.
    package mutating func invalidate() {
        entries.removeAll()
        generation &+= 1
    }

    package var count: Int { entries.count }
}
