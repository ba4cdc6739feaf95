import Crypto
import AppStoreSamples
import AppStoreVerification
import Foundation
import LedgerDomain
import LedgerPrivacy
import LedgerRecording
import LedgerStore
import LedgerTenancy
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// The application layer on a real database: each write is one call, and its refusals are domain errors.
@Suite struct LedgerRecorderTests {
    static let jan1 = AppStorePayloads.jan1
    static let day = AppStorePayloads.day

    struct World {
        let recorder: LedgerRecorder
        let store: EventStore
        let signer: AppStoreTestSigner
        let app: AppRecord

        func close() async { await store.pool.shutdown() }
    }

    static func world(policy: TransferPolicy = .keepAndRefuse) async throws -> World {
        let pool = try await LedgerDatabase.open(
            connectionString: try await TestDatabase.makeDatabase(prefix: "recording"),
            migrations: try SchemaLocation.migrations())
        let store = EventStore(pool: pool)
        let tenancy = TenancyStore(pool: pool)
        let account = try await tenancy.createAccount(name: "Acme")
        let app = try await tenancy.createApp(
            .init(
                accountID: account.id, name: "Notes", bundleID: "com.example.app",
                appleAppID: 1234, transferPolicy: policy))
        let signer = try AppStoreTestSigner()
        let clock = LedgerClock { Instant(epochMilliseconds: jan1 + 5 * day) }
        let identities = IdentityStore(pool: pool, keys: MasterKeySource(key: SymmetricKey(size: .bits256)))
        let recorder = LedgerRecorder(
            store: store, tenancy: tenancy, identities: identities, roots: TrustRoots(certificates: signer.roots), clock: clock)
        return World(recorder: recorder, store: store, signer: signer, app: app)
    }

    static let metadata = EventMetadata(source: "test")

    @Test func aNotificationIsRecordedOnceAndItsForgeryIsUnverifiable() async throws {
        let w = try await Self.world()
        let signed = try w.signer.notification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: Self.jan1 + 1000,
            transactionJSON: AppStorePayloads.transaction(id: "10", original: "10", signed: Self.jan1 + 1000))
        let (uuid, first) = try await w.recorder.notification(app: w.app, signedPayload: signed, metadata: Self.metadata)
        #expect(!uuid.isEmpty)
        #expect(first.recorded == 2 && first.alreadyKnown == 0 && first.positions.count == 2)
        let (_, again) = try await w.recorder.notification(app: w.app, signedPayload: signed, metadata: Self.metadata)
        #expect(again.recorded == 0 && again.alreadyKnown == 2 && again.positions == first.positions)

        let forged = JWSSigner.tamper(signed, segment: 2)
        await #expect {
            try await w.recorder.notification(app: w.app, signedPayload: forged, metadata: Self.metadata)
        } throws: { error in
            guard case .unverifiable(let failure, let path)? = error as? RecordingError else { return false }
            return failure.code == .invalidSignature && path == nil
        }
        await w.close()
    }

    @Test func anUploadOfAnotherUsersPurchaseIsRecordedButTheRestoreIsRefused() async throws {
        let w = try await Self.world(policy: .keepAndRefuse)
        let upload = [(transaction: try w.signer.sign(AppStorePayloads.transaction(id: "20", original: "20")), renewalInfo: String?.none)]
        let (mine, ids) = try await w.recorder.transactions(app: w.app, user: "alice", upload, link: true, metadata: Self.metadata)
        #expect(ids == ["20"] && mine.recorded > 0)
        await #expect {
            try await w.recorder.transactions(app: w.app, user: "bob", upload, link: true, metadata: Self.metadata)
        } throws: { error in
            guard case .restoreRefused(let refusal)? = error as? RecordingError else { return false }
            return refusal.conflicts.map(\.ownerUserID) == ["alice"]
        }
        await #expect(throws: RecordingError.nothingToRestore) {
            try await w.recorder.restore(app: w.app, user: "bob", LedgerRecorder.RestoreSources(), metadata: Self.metadata)
        }
        await w.close()
    }

    @Test func consumingASubscriptionOrAnUnknownPurchaseIsRefusedByName() async throws {
        let w = try await Self.world()
        let upload = [(transaction: try w.signer.sign(AppStorePayloads.transaction(id: "30", original: "30")), renewalInfo: String?.none)]
        _ = try await w.recorder.transactions(app: w.app, user: "alice", upload, link: true, metadata: Self.metadata)
        await #expect(throws: RecordingError.subscriptionNotConsumable(originalTransactionID: "30")) {
            try await w.recorder.consume(app: w.app, originalTransactionID: "30", by: "alice", metadata: Self.metadata)
        }
        await #expect(throws: RecordingError.notConsumed(.unknownPurchase(originalTransactionID: "31"))) {
            try await w.recorder.consume(app: w.app, originalTransactionID: "31", by: "alice", metadata: Self.metadata)
        }
        let coins = [
            (
                transaction: try w.signer.sign(
                    AppStorePayloads.transaction(
                        id: "40", original: "40", product: "coins", type: "Consumable", expires: nil)), renewalInfo: String?.none
            )
        ]
        _ = try await w.recorder.transactions(app: w.app, user: "alice", coins, link: true, metadata: Self.metadata)
        let consumed = try await w.recorder.consume(app: w.app, originalTransactionID: "40", by: "alice", metadata: Self.metadata)
        #expect(consumed.consumedAt == Instant(epochMilliseconds: Self.jan1 + 5 * Self.day))  // the recorder's clock
        await w.close()
    }
}
