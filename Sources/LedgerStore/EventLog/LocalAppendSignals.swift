import LedgerConcurrency
import Synchronization

/// Wakes this process's readers of a database's appends the moment an append commits, without a round trip
/// through PostgreSQL. The projection worker and subscriptions register here besides their LISTEN; NOTIFY
/// (`AppendAnnouncer`, spaced) is then only for other processes, which may hear of an append a few milliseconds
/// later. Keyed by the database's connection string: test processes hold many databases at once.
package enum LocalAppendSignals {
    private static let registry = Mutex<[String: [ObjectIdentifier: WakeSignal]]>([:])

    /// `signal` fires on every append to `database` made in this process, until `unregister`.
    package static func register(_ signal: WakeSignal, database: String) {
        registry.withLock { $0[database, default: [:]][ObjectIdentifier(signal)] = signal }
    }

    package static func unregister(_ signal: WakeSignal, database: String) {
        registry.withLock { registry in
            registry[database]?[ObjectIdentifier(signal)] = nil
            if registry[database]?.isEmpty == true { registry[database] = nil }
        }
    }

    /// An append to `database` committed.
    package static func appended(database: String) {
        let signals = registry.withLock { $0[database].map { Array($0.values) } ?? [] }
        for signal in signals { signal.fire() }
    }
}
