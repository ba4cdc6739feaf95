import Foundation
import Synchronization
import UTCTime

/// What a load run saw, counted across concurrent senders.
final class LoadCounters: Sendable {
    struct Counts: Sendable {
        var requests = 0
        /// Attempts sent and not yet answered or failed.
        var inFlight = 0
        var acknowledged = 0
        var retries = 0
        var transportErrors = 0
        var rejects = 0
        /// Retries the server answered as already recorded (`recorded` 0): the earlier, cut-off attempt had committed.
        var duplicatesAbsorbed = 0
        var statuses: [Int: Int] = [:]
        /// Error answers whose body was not a JSON error with a code.
        var nonJSONErrors = 0
        var acknowledgedNotifications: Set<String> = []
        var acknowledgedReceipts: Set<String> = []
        var rejectTexts: [String] = []
        /// Answers 5xx other than 503 (status, elapsed time, the body's start): each is a failure of the rehearsals.
        var serverErrorTexts: [String] = []
        /// 503 answers without a `Retry-After` header (a client would not know when to come back).
        var unavailableWithoutRetryAfter = 0
        /// The slowest answer, in milliseconds.
        var slowestMilliseconds = 0
        /// Server kills so far, announced by the test just before each SIGKILL (`announceKill`).
        var kills = 0
        /// For kill n (from 1), the attempts it cut off: sent before it was announced, failed in transport after.
        var cutOffByKill: [Int: Int] = [:]
        /// When the first and the last 503 answer arrived.
        var firstUnavailable: ContinuousClock.Instant?
        var lastUnavailable: ContinuousClock.Instant?
    }

    private let counts = Mutex(Counts())

    var snapshot: Counts { counts.withLock { $0 } }
    @discardableResult
    func update<T>(_ body: (inout Counts) -> T) -> T { counts.withLock { body(&$0) } }

    /// Call right before killing the server: attempts already sent that then fail in transport count as cut off by it.
    func announceKill() { update { $0.kills += 1 } }
}

/// Sends deliveries like a well-behaved client of an unreliable server: every failed attempt (transport error,
/// 5xx, 409) is retried until a definitive answer (2xx: acknowledged, other 4xx: rejected) or the deadline.
struct RetryingSender: Sendable {
    let client: HTTPClient
    let tenant: LedgerTenant
    let counters: LoadCounters
    var deadline: ContinuousClock.Instant = .now + .seconds(600)

    enum Outcome: Sendable, Equatable { case acknowledged, rejected }

    func send(_ delivery: Delivery) async throws -> Outcome {
        let (path, headers) = delivery.request(for: tenant)
        var attempt = 0
        while true {
            attempt += 1
            if attempt > 1 { counters.update { $0.retries += 1 } }
            let started = ContinuousClock.now
            let answer: HTTPAnswer
            let killsBefore = counters.update {
                $0.requests += 1
                $0.inFlight += 1
                return $0.kills
            }
            do {
                answer = try await client.send("POST", path, headers: headers, body: delivery.body)
                counters.update { $0.inFlight -= 1 }
            } catch {
                counters.update {
                    $0.inFlight -= 1
                    $0.transportErrors += 1
                    if $0.kills > killsBefore { $0.cutOffByKill[killsBefore + 1, default: 0] += 1 }
                }
                try await backOff(attempt)
                continue
            }
            let elapsed = Int((ContinuousClock.now - started) / .milliseconds(1))
            counters.update {
                $0.statuses[answer.status, default: 0] += 1
                if answer.status == 503 {
                    $0.firstUnavailable = $0.firstUnavailable ?? .now
                    $0.lastUnavailable = .now
                    if !answer.headers.keys.contains(where: { $0.lowercased() == "retry-after" }) { $0.unavailableWithoutRetryAfter += 1 }
                } else if answer.status >= 500 {
                    $0.serverErrorTexts.append("\(answer.status) after \(elapsed) ms: \(answer.text.prefix(200))")
                }
                $0.slowestMilliseconds = max($0.slowestMilliseconds, elapsed)
                if !answer.isSuccess, answer.errorCode == nil { $0.nonJSONErrors += 1 }
            }
            if answer.isSuccess {
                counters.update {
                    $0.acknowledged += 1
                    if attempt > 1, answer.json["recorded"] as? Int == 0 { $0.duplicatesAbsorbed += 1 }
                    switch delivery.kind {
                    case .notification(let uuid): $0.acknowledgedNotifications.insert(uuid)
                    case .receipt(_, let ids): $0.acknowledgedReceipts.formUnion(ids)
                    }
                }
                return .acknowledged
            }
            if (400..<500).contains(answer.status), answer.status != 409, answer.status != 429 {
                counters.update {
                    $0.rejects += 1
                    $0.rejectTexts.append("\(answer.status) \(answer.text.prefix(300))")
                }
                return .rejected
            }
            try await backOff(attempt)
        }
    }

    /// A short, growing pause between attempts (a client's politeness, not synchronisation), bounded by the deadline.
    private func backOff(_ attempt: Int) async throws {
        guard ContinuousClock.now < deadline else { throw RetryError.gaveUp }
        try await Task.sleep(for: .milliseconds(min(200, 10 * attempt)))
    }

    enum RetryError: Error { case gaveUp }

    /// Sends every delivery of `lanes` (each lane in order) with one concurrent task per lane.
    func sendAll(_ lanes: [[Delivery]]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in lanes {
                group.addTask { for delivery in lane { _ = try await send(delivery) } }
            }
            try await group.waitForAll()
        }
    }
}
