import LedgerServer
import Testing

@Suite struct ExpiringCacheTests {
    let start = ContinuousClock.now

    @Test func aValueLastsItsTimeToLiveAndNoLonger() {
        var cache = ExpiringCache<String, Int>(capacity: 10)
        #expect(cache.value(for: "k", now: start) == nil)
        cache.store(1, for: "k", readAt: cache.generation, now: start, timeToLive: .seconds(1))
        #expect(cache.value(for: "k", now: start) == 1)
        #expect(cache.value(for: "k", now: start + .milliseconds(999)) == 1)
        #expect(cache.value(for: "k", now: start + .seconds(1)) == nil)
    }

    @Test func anInvalidationDropsEveryValue() {
        var cache = ExpiringCache<String, Int>(capacity: 10)
        cache.store(1, for: "a", readAt: cache.generation, now: start, timeToLive: .seconds(60))
        cache.store(2, for: "b", readAt: cache.generation, now: start, timeToLive: .seconds(60))
        cache.invalidate()
        #expect(cache.value(for: "a", now: start) == nil)
        #expect(cache.value(for: "b", now: start) == nil)
        #expect(cache.count == 0)
    }

    /// A lookup read the database, then a change was announced before it stored what it read: what it read may be
    /// the old value, so it is not kept.
    @Test func aReadThatBeganBeforeAnInvalidationIsNotKept() {
        var cache = ExpiringCache<String, Int>(capacity: 10)
        let began = cache.generation
        cache.invalidate()
        cache.store(1, for: "k", readAt: began, now: start, timeToLive: .seconds(60))
        #expect(cache.value(for: "k", now: start) == nil)
        cache.store(2, for: "k", readAt: cache.generation, now: start, timeToLive: .seconds(60))
        #expect(cache.value(for: "k", now: start) == 2)
    }

    @Test func aFloodOfKeysStaysWithinTheCapacity() {
        var cache = ExpiringCache<Int, Int>(capacity: 100)
        for key in 0..<1_000 { cache.store(key, for: key, readAt: cache.generation, now: start + .milliseconds(key), timeToLive: .seconds(1)) }
        #expect(cache.count <= 100)
        #expect(cache.value(for: 999, now: start + .milliseconds(999)) == 999)
    }
}
