import Foundation
import Synchronization
import X509

/// Remembers leaf/intermediate pairs that already chained to our roots, so each notification (up to three JWS, all
/// signed by the same certificates) does not rebuild the chain.
///
/// An entry records the time window in which every certificate of the verified chain is valid, and a hit requires
/// the new validation time to fall inside it, so a cached answer is always the answer a fresh verification would
/// give. Entries also expire after `timeToLive` and the cache holds at most `capacity` entries (oldest evicted first),
/// keeping memory bounded whatever certificates an attacker sends (only verified chains are inserted anyway).
final class ChainCache: Sendable {
    struct Key: Hashable, Sendable {
        let leaf: Certificate
        let intermediate: Certificate
    }

    private struct Entry: Sendable {
        let validFrom: Date
        let validUntil: Date
        let insertedAt: Date
    }

    private struct State: Sendable {
        var entries: [Key: Entry] = [:]
        var insertionOrder: [Key] = []
    }

    let capacity: Int
    let timeToLive: TimeInterval
    private let state = Mutex(State())

    init(capacity: Int = 64, timeToLive: TimeInterval = 3600) {
        self.capacity = max(1, capacity)
        self.timeToLive = timeToLive
    }

    /// Whether `key` was verified before and that verification holds at `validationTime`.
    func contains(_ key: Key, validAt validationTime: Date, now: Date = Date()) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[key] else { return false }
            guard now.timeIntervalSince(entry.insertedAt) < timeToLive else {
                state.entries[key] = nil
                state.insertionOrder.removeAll { $0 == key }
                return false
            }
            return entry.validFrom <= validationTime && validationTime <= entry.validUntil
        }
    }

    /// Records a verified chain valid from `validFrom` to `validUntil` (the intersection of its certificates).
    func insert(_ key: Key, validFrom: Date, validUntil: Date, now: Date = Date()) {
        state.withLock { state in
            if state.entries[key] == nil { state.insertionOrder.append(key) }
            state.entries[key] = Entry(validFrom: validFrom, validUntil: validUntil, insertedAt: now)
            while state.insertionOrder.count > capacity {
                let evicted = state.insertionOrder.removeFirst()
                state.entries[evicted] = nil
            }
        }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
