import AppStoreIngest
import AppStoreSamples
import LedgerDomain
import Testing
import UTCTime

@Suite("Streams and keys")
struct StreamNamingTests {
    let at = instant(jan1)

    @Test func identityEventsAreSplitPerOriginalTransaction() {
        let restore = LedgerEvent.linked(TransactionLink(appUserID: "u1", originalTransactionIDs: ["o2", "o1", "o2"], linkedAt: at, source: .restore))
        #expect(StreamNaming.splitPerOriginalTransaction(restore).map(\.originalTransactionIDs) == [["o1"], ["o2"], ["o2"]])
        let appends = StreamNaming.appends(for: [restore])
        #expect(appends.map(\.stream) == ["otx:o1", "otx:o2"])  // the repeated id appends once
        #expect(appends.map(\.idempotencyKey) == ["link:u1:o1:\(at.microsecondsSinceEpoch)", "link:u1:o2:\(at.microsecondsSinceEpoch)"])
        #expect(
            appends.map(\.event) == [
                .linked(TransactionLink(appUserID: "u1", originalTransactionIDs: ["o1"], linkedAt: at, source: .restore)),
                .linked(TransactionLink(appUserID: "u1", originalTransactionIDs: ["o2"], linkedAt: at, source: .restore))
            ])
        #expect(StreamNaming.appends(for: [restore]).map(\.idempotencyKey) == appends.map(\.idempotencyKey))  // deterministic
        #expect(!appends.map(\.idempotencyKey).contains(restore.idempotencyKey))

        let transfer = LedgerEvent.transferred(
            Transfer(
                fromUserID: "u1", toUserID: "u2", originalTransactionIDs: ["o1", "o3"], transferredAt: at,
                policy: .transfer))
        let moved = StreamNaming.appends(for: [transfer])
        #expect(moved.map(\.stream) == ["otx:o1", "otx:o3"])
        #expect(moved.map(\.event.originalTransactionIDs) == [["o1"], ["o3"]])
        #expect(Set(moved.map(\.idempotencyKey)).count == 2)
        expectRoundTrips(appends.map(\.event) + moved.map(\.event))
    }

    @Test func singleAndEmptyIdentityEvents() {
        let one = LedgerEvent.linked(TransactionLink(appUserID: "u1", originalTransactionIDs: ["o1"], linkedAt: at, source: .upload))
        #expect(StreamNaming.appends(for: [one]).map(\.idempotencyKey) == [one.idempotencyKey])
        let none = LedgerEvent.linked(TransactionLink(appUserID: "u1", originalTransactionIDs: [], linkedAt: at, source: .upload))
        #expect(StreamNaming.appends(for: [none]).isEmpty)
    }

    @Test func everyFactAboutAPurchaseSharesItsStream() throws {
        let t = try transaction(AppStorePayloads.transaction(id: "2000000002", original: "2000000001", revocation: jan1 + 3 * day))
        let events = try TransactionIngest().events(transaction: t, renewalInfo: renewalInfo(original: "2000000001", next: "yearly"), appUserID: "u1")
        let appends = StreamNaming.appends(for: events + events)  // duplicates collapse
        #expect(appends.count == events.count)
        #expect(Set(appends.map(\.stream)) == ["otx:2000000001"])
        #expect(appends.map(\.idempotencyKey) == events.map(\.idempotencyKey))
    }

    @Test func streamNames() {
        #expect(LedgerStreams.purchase(originalTransactionID: "123") == "otx:123")
        #expect(LedgerStreams.notification(uuid: "abc") == "notification:abc")
    }
}
