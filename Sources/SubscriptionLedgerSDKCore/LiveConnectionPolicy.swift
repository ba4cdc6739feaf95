import Foundation

/// The live stream's reconnect and fallback rules, without I/O: given how the last connection ended, what to do
/// next. Reconnects carry the last cursor (the ledger then sends a fresh snapshot holding everything missed).
public struct LiveConnectionPolicy: Sendable, Equatable {
    /// How an attempt to hold the stream ended.
    public enum Ending: Sendable, Equatable {
        /// Connected and received at least one event, then the connection ended (server restart, network change).
        case droppedAfterEvents
        /// Could not connect, or the connection ended before any event (transport error).
        case unreachable
        /// The ledger answered an HTTP error instead of the stream.
        case refused(status: Int)
    }

    /// What to do next.
    public enum Decision: Sendable, Equatable {
        /// Open the stream again after `delay`; `keepCursor` false: drop the cursor (the ledger refused it).
        case reconnect(after: Duration, keepCursor: Bool)
        /// The stream is unavailable: poll the status every `interval`, and try the stream again after `retryStreamAfter`.
        case poll(every: Duration, retryStreamAfter: Duration)
        /// Stop: the credentials are refused (the app must configure again); polling would be refused as well.
        case stop
    }

    public var retry: RetryPolicy
    public var pollInterval: Duration
    /// Consecutive failures after which the status is polled while the stream keeps failing.
    public var failuresBeforePolling: Int
    public private(set) var consecutiveFailures = 0

    public init(
        retry: RetryPolicy = RetryPolicy(initialDelay: .milliseconds(500), maximumDelay: .seconds(60)),
        pollInterval: Duration = .seconds(60), failuresBeforePolling: Int = 3
    ) {
        self.retry = retry
        self.pollInterval = pollInterval
        self.failuresBeforePolling = failuresBeforePolling
    }

    public mutating func decide(after ending: Ending, random: Double = Double.random(in: 0..<1)) -> Decision {
        switch ending {
        case .droppedAfterEvents:
            // It worked a moment ago: reconnect at once, with the cursor.
            consecutiveFailures = 0
            return .reconnect(after: .zero, keepCursor: true)
        case .refused(let status) where status == 401 || status == 403:
            return .stop
        case .refused(let status) where status == 400:
            // A cursor the ledger does not know (e.g. another ledger after a restore): start from a snapshot.
            consecutiveFailures += 1
            return .reconnect(after: retry.delay(afterFailures: consecutiveFailures, random: random), keepCursor: false)
        case .refused(let status) where status == 404 || status == 406 || status == 501:
            // A ledger without the live endpoint: polling is the only way.
            consecutiveFailures += 1
            return .poll(every: pollInterval, retryStreamAfter: retry.maximumDelay)
        case .refused, .unreachable:
            consecutiveFailures += 1
            let delay = retry.delay(afterFailures: consecutiveFailures, random: random)
            if consecutiveFailures >= failuresBeforePolling { return .poll(every: pollInterval, retryStreamAfter: delay) }
            return .reconnect(after: delay, keepCursor: true)
        }
    }
}
