import AppStoreSamples
import Foundation
import PostgresTestSupport
import Synchronization
import Testing

/// Issue 8.3: Apple delivers each notification 1–5 times, shuffled, some copies concurrently. The final state
/// equals that of a second app fed every notification once, in order.
@Suite struct DeliveryChaosTests {
    @Test func duplicatedShuffledConcurrentDeliveryEndsInTheInOrderState() async throws {
        let started = ContinuousClock.now
        let userCount = ReliabilityScale.pick(ci: 80, full: 600)
        let signer = try AppStoreTestSigner()
        let histories = try SubscriptionHistories(users: userCount, seed: 33, signer: signer)
        let (server, databaseURL) = try await ServerProcess.started(databasePrefix: "chaos", signer: signer)
        defer { server.killNow() }
        let client = HTTPClient(base: server.baseURL)
        let chaotic = try await LedgerTenant.create(client)
        let orderly = try await LedgerTenant.create(client, accountID: chaotic.accountID)

        // The reference: each notification once, each user's in order.
        let orderlyCounters = LoadCounters()
        let lanes = (0..<4).map { lane in stride(from: lane, to: histories.deliveries.count, by: 4).flatMap { histories.deliveries[$0] } }
        try await RetryingSender(client: client, tenant: orderly, counters: orderlyCounters).sendAll(lanes)

        // The chaos: 1–5 copies of each, shuffled; a job with two copies sends them at the same time.
        var jobs: [[Delivery]] = []
        for delivery in histories.all {
            var copies = Int.random(in: 1...5)
            if copies >= 2, Bool.random() {
                jobs.append([delivery, delivery])
                copies -= 2
            }
            jobs += Array(repeating: [delivery], count: copies)
        }
        jobs.shuffle()
        let chaosCounters = LoadCounters()
        let chaos = RetryingSender(client: client, tenant: chaotic, counters: chaosCounters)
        let queue = JobQueue(jobs)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    while let job = queue.next() {
                        try await withThrowingTaskGroup(of: Void.self) { copies in
                            for delivery in job { copies.addTask { _ = try await chaos.send(delivery) } }
                            try await copies.waitForAll()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }

        let inspection = LogInspection(databaseURL: databaseURL)
        try await inspection.waitForProjections()
        let chaosSeen = chaosCounters.snapshot
        #expect(chaosSeen.rejects == 0 && orderlyCounters.snapshot.rejects == 0, "\(chaosSeen.rejectTexts.prefix(3))")
        #expect(try await inspection.eventCount(app: chaotic.appID) == inspection.eventCount(app: orderly.appID))
        // Compared revealed: the two apps name the same users by different pseudonyms.
        let (revealChaos, revealOrder) = (try await inspection.revealer(app: chaotic.appID), try await inspection.revealer(app: orderly.appID))
        let chaoticKeys = try await Set(inspection.idempotencyKeyCounts(app: chaotic.appID).keys.map(revealChaos))
        #expect(try await chaoticKeys == Set(inspection.idempotencyKeyCounts(app: orderly.appID).keys.map(revealOrder)))
        let chaosStates = try await inspection.projectionStates(app: chaotic.appID).mapValues(revealChaos)
        let orderStates = try await inspection.projectionStates(app: orderly.appID).mapValues(revealOrder)
        #expect(!orderStates.isEmpty)
        let differing = Set(chaosStates.keys).union(orderStates.keys).filter { chaosStates[$0] != orderStates[$0] }
        #expect(
            differing.isEmpty,
            """
            \(differing.count) projection states differ, e.g. \
            \(differing.sorted().prefix(2).map { "\($0): \(chaosStates[$0] ?? "-") vs \(orderStates[$0] ?? "-")" })
            """)

        var activeUsers = 0
        var differentUsers: [String] = []
        for user in histories.users {
            let views: [(String, (LedgerTenant) -> [String: String])] = [
                ("/v1/users/\(user)", { $0.secret }), ("/productsStatus?user-id=\(user)", { ["APIKey": $0.secretKey] })
            ]
            for (path, headers) in views {
                let a = try await client.send("GET", path, headers: headers(chaotic))
                let b = try await client.send("GET", path, headers: headers(orderly))
                #expect(a.status == 200 && b.status == 200, "\(path): \(a.text)")
                if a.text != b.text { differentUsers.append("\(path): \(a.text) vs \(b.text)") }
                if path.hasPrefix("/productsStatus"), b.text.contains("\"active\"") { activeUsers += 1 }
            }
        }
        #expect(differentUsers.isEmpty, "\(differentUsers.count) answers differ, e.g. \(differentUsers.prefix(2))")
        #expect(activeUsers > 0, "the histories leave some users active, so the comparison can fail")

        ReliabilityScale.report(
            "delivery-chaos",
            [
                "notifications": histories.all.count, "copies_sent": jobs.map(\.count).reduce(0, +),
                "concurrent_pairs": jobs.filter { $0.count == 2 }.count, "requests": chaosSeen.requests + orderlyCounters.snapshot.requests,
                "duplicates_absorbed": chaosSeen.acknowledged - histories.all.count, "rejects": chaosSeen.rejects,
                "users_compared": histories.users.count, "active_users": activeUsers, "projection_states": orderStates.count,
                "events_per_app": try await inspection.eventCount(app: orderly.appID),
                "seconds": Int((ContinuousClock.now - started) / .seconds(1))
            ])
    }
}

/// Jobs shared by concurrent workers, each taken once.
final class JobQueue: Sendable {
    private let jobs: Mutex<ArraySlice<[Delivery]>>
    init(_ jobs: [[Delivery]]) { self.jobs = Mutex(jobs[...]) }
    func next() -> [Delivery]? { jobs.withLock { $0.popFirst() } }
}
