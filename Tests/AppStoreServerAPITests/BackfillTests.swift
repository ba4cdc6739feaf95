import AppStoreSamples
import AppStoreServerAPI
import AppStoreServerTestSupport
import AppStoreSync
import AppStoreVerification
import Crypto
import Foundation
import LedgerDomain
import LedgerRecording
import LedgerStore
import Testing

/// Backfill through a fake App Store Server that pages, rate-limits and fails at random: exact, and idempotent with
/// the notifications delivered before, during and after it.
@Suite(.timeLimit(.minutes(10))) struct BackfillTests {
    @Test func aLongHistoryIsImportedExactlyOnceWhateverTheNotificationsDo() async throws {
        let world = try await SyncWorld.make(failureRate: 0.3)
        let client = try world.client()
        try await world.deliver(0...10)  // before
        // During: the renewals' notifications arrive while the backfill runs.
        async let during: Void = world.deliver(11...30)
        let summary = try await world.backfill.run(app: world.app, client: client, transactionIDs: ["1000", "2000", "999999"])
        try await during
        try await world.deliver(31...44)  // after

        let held = world.fake.transactions
        #expect(held.count == 61)
        #expect(summary.purchases == 8)  // 1000, 1100…1104, 2000, 2100
        #expect(summary.transactionsSeen == 61)
        #expect(
            summary.failures == [
                .init(
                    transactionID: "999999", code: "appstore_api", appleErrorCode: 4_040_010,
                    message: "the App Store Server API answered 404 with error 4040010: Transaction id not found.")
            ])
        // Every transaction Apple holds is in the log once, under its own key, and nothing else is a transaction.
        let events = try await world.events()
        #expect(Set(events.keys.filter { $0.hasPrefix("tx:") }) == Set(held.map { "tx:\($0.transactionID)" }))
        // The fake paged, injected failures, and the client got through them; every call carried a valid token.
        let calls = world.fake.calls
        #expect(calls.filter { $0.path.hasPrefix("/inApps/v2/history/") && $0.status == 200 }.count == 8 + 2)
        #expect(world.fake.injectedFailures > 0 && calls.contains { $0.status == 429 } && calls.allSatisfy { $0.status != 401 })
        #expect(calls.allSatisfy { !$0.path.hasPrefix("/inApps/v2/history/") || $0.query.contains("sort=ASCENDING") })
        // The backfill's events say where they came from; those the notifications recorded first are theirs.
        #expect(events["tx:2000"]?.source == "appstore.api" && events["tx:1005"]?.source == "test")
        // The refund of 2105 and the latest renewal info (auto-renew off for 2100) are recorded.
        #expect(events.contains { $0.value.type == "transaction.refunded" })
        #expect(events.values.contains { $0.type == "subscription.auto_renew_changed" && $0.payload.contains(#""enabled": false"#) })

        // A second backfill finds everything known.
        let again = try await world.backfill.run(app: world.app, client: client, transactionIDs: ["1000", "2000"])
        #expect(again.eventsRecorded == 0 && again.alreadyKnown > 0 && again.transactionsSeen == 61)
        #expect(try await world.events().count == events.count)

        // The same facts as a ledger that got every notification first and backfilled afterwards.
        let reference = try await SyncWorld.make(signer: world.signer)
        try await reference.deliver(0...44)
        _ = try await reference.backfill.run(app: reference.app, client: try reference.client(), transactionIDs: ["1000", "2000"])
        // (Apple signs renewal info at each call, so the two ledgers' renewal facts differ by their signing time only.)
        func renewalFact(_ key: String) -> Bool { key.hasPrefix("subscription.auto_renew_changed:") }
        let expected = try await reference.events()
        #expect(Set(expected.keys.filter { !renewalFact($0) }) == Set(events.keys.filter { !renewalFact($0) }))
        #expect(expected.keys.filter(renewalFact).count == events.keys.filter(renewalFact).count)
        // (A notification's verbatim record holds its JWS, whose ECDSA signature differs at each signing: compared by type.)
        let differing = expected.keys.filter { !renewalFact($0) }.filter { key in
            expected[key]?.type != events[key]?.type || (!key.hasPrefix("notification:") && expected[key]?.payload != events[key]?.payload)
        }
        #expect(differing.isEmpty, "\(differing.sorted().prefix(3).map { ($0, expected[$0]?.payload ?? "", events[$0]?.payload ?? "") })")
        await reference.close()

        // The log and the read models stay consistent.
        let checks = try await world.checkLogAndReadModels()
        #expect(checks.replay == 0 && checks.verify == 0)
        await world.close()
    }

    @Test func aWrongKeyOrBundleIdIsAClearTypedError() async throws {
        let world = try await SyncWorld.make()
        for client in [try world.client(privateKey: P256.Signing.PrivateKey()), try world.client(bundleID: "com.example.other")] {
            await #expect {
                _ = try await world.backfill.run(app: world.app, client: client, transactionIDs: ["1000"])
            } throws: { error in
                guard case .appStore(.rejected(401, nil, nil))? = error as? AppStoreSyncError else { return false }
                return "\(error)".contains("key_id") && "\(error)".contains("bundle id")
            }
        }
        #expect(try await world.events().isEmpty)
        // Apple's 401 is not retried: one call each.
        #expect(world.fake.calls.count == 2)
        await world.close()
    }

    @Test func theOtherCallsReachTheirEndpointsSignedAndTheirSignedItemsAreVerified() async throws {
        let world = try await SyncWorld.make()
        let client = try world.client()
        let lookups = AppStoreLookups(recorder: world.recorder)
        let test = try await lookups.requestTestNotification(app: world.app, client: client)
        #expect(test.token == "fake-test-token" && test.sent?.payload.notificationType?.rawValue == "TEST")
        #expect(try await lookups.order(app: world.app, client: client, orderID: "MQ2X7Y").map(\.transactionId) == ["1000"])
        #expect(try await lookups.order(app: world.app, client: client, orderID: "NOPE").isEmpty)
        #expect(try await lookups.refunds(app: world.app, client: client, transactionID: "2000").map(\.transactionId) == ["2105"])
        // Signed by someone else: refused by the offline verification, as a forged notification would be.
        let stranger = try await SyncWorld.make(database: world.url)
        await #expect {
            _ = try await AppStoreLookups(recorder: stranger.recorder).order(app: stranger.app, client: client, orderID: "MQ2X7Y")
        } throws: { error in
            guard case .unverifiable(let failure, _)? = error as? RecordingError else { return false }
            return failure.code == .untrustedChain
        }
        await stranger.close()
        await #expect(throws: AppStoreServerAPIError.rejected(status: 404, errorCode: 4_040_012, errorMessage: "Test notification not found.")) {
            try await client.testNotificationStatus(token: "../../history/1000")
        }
        // An id cannot leave its path segment.
        let last = try #require(world.fake.calls.last)
        #expect(last.path.hasPrefix("/inApps/v1/notifications/test/") && !last.path.contains("/history/"))
        let statuses = try await client.allSubscriptionStatuses(transactionID: "1000")
        #expect(statuses.data.flatMap(\.lastTransactions).map(\.originalTransactionId) == ["1000"])
        await world.close()
    }
}
