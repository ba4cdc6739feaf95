import AppStoreSamples
import AppStoreIngest
import AppStoreVerification
import LedgerDomain
import Testing

@Suite("SDK transaction upload → events")
struct TransactionIngestTests {
    let ingest = TransactionIngest()

    func link(_ user: String, _ otid: String, source: LinkSource = .upload, at ms: Int64 = jan1 + 123) -> LedgerEvent {
        .linked(TransactionLink(appUserID: user, originalTransactionIDs: [otid], linkedAt: instant(ms), source: source))
    }

    @Test func firstPurchaseWithRenewalInfo() throws {
        let t = try transaction(AppStorePayloads.transaction(id: "2000000001", original: "2000000001"))
        let events = try ingest.events(transaction: t, renewalInfo: renewalInfo(original: "2000000001"), appUserID: "u1")
        #expect(events.count == 3)
        guard case .subscriptionStarted(let s) = events[0] else { Issue.record("\(events)"); return }
        #expect(!s.isResubscribe && s.transaction.appUserID == "u1" && s.transaction.transactionID == "2000000001")
        let ref = SubscriptionRef(
            appUserID: "u1", productID: "monthly", originalTransactionID: "2000000001",
            subscriptionGroupID: "21000001", environment: .sandbox, signedDate: instant(jan1 + 41 * day))
        #expect(events[1] == .autoRenewChanged(AutoRenewChange(subscription: ref, enabled: true)))
        #expect(events[2] == link("u1", "2000000001"))
        #expect(events[0].idempotencyKey == "tx:2000000001")
        expectRoundTrips(events)
    }

    @Test func billingRetryWithAndWithoutGraceFromUploadedRenewalInfo() throws {
        let t = try transaction(
            AppStorePayloads.transaction(
                id: "2000000002", original: "2000000001", purchase: "\(jan1 + 31 * day)",
                reason: "RENEWAL"))
        let base =
            #"{"originalTransactionId":"2000000001","autoRenewProductId":"monthly","productId":"monthly","autoRenewStatus":1,"#
            + #""signedDate":\#(jan1 + 62 * day),"environment":"Sandbox","isInBillingRetryPeriod":true"#
        let withGrace = try RenewalInfoPayload(json: parse(base + #","gracePeriodExpiresDate":\#(jan1 + 78 * day)}"#))
        let failures = try ingest.events(transaction: t, renewalInfo: withGrace, appUserID: "u1").compactMap { event -> BillingFailure? in
            if case .billingFailed(let failure) = event { return failure }
            return nil
        }
        #expect(failures.count == 1)
        #expect(failures.first?.gracePeriodExpiresAt == instant(jan1 + 78 * day))
        let retryOnly = try RenewalInfoPayload(json: parse(base + "}"))
        let plain = try ingest.events(transaction: t, renewalInfo: retryOnly, appUserID: "u1")
        #expect(
            plain.contains {
                if case .billingFailed(let f) = $0 { return f.gracePeriodExpiresAt == nil }; return false
            })
        // Not retrying: no billing failure.
        #expect(
            !(try ingest.events(transaction: t, renewalInfo: renewalInfo(original: "2000000001"), appUserID: "u1"))
                .contains {
                    if case .billingFailed = $0 { return true }; return false
                })
        expectRoundTrips(plain)
    }

    @Test func renewalResubscribeAndPreference() throws {
        let renewal = try transaction(
            AppStorePayloads.transaction(
                id: "2000000002", original: "2000000001", purchase: "\(jan1 + 31 * day)",
                reason: "RENEWAL"))
        let events = try ingest.events(
            transaction: renewal, renewalInfo: renewalInfo(original: "2000000001", next: "monthly-lite", autoRenew: 0),
            appUserID: "u1")
        guard case .subscriptionRenewed(let r) = events[0] else { Issue.record("\(events)"); return }
        #expect(r.transaction.originalPurchaseDate == instant(jan1 + 123))
        guard case .autoRenewChanged(let off) = events[1],
            case .renewalPreferenceChanged(let change) = events[2]
        else { Issue.record("\(events)"); return }
        #expect(!off.enabled)
        #expect(change.kind == .downgrade && change.autoRenewProductID == "monthly-lite" && change.transaction == nil)
        // The link is stamped with the original purchase: every renewal's upload repeats the same key.
        #expect(events[3] == link("u1", "2000000001"))

        let comeback = try transaction(
            AppStorePayloads.transaction(
                id: "2000000009", original: "2000000001", purchase: "\(jan1 + 90 * day)",
                reason: "PURCHASE"))
        guard
            case .subscriptionStarted(let s)? = try ingest.events(
                transaction: comeback,
                appUserID: "u1"
            ).first
        else { Issue.record("not a start"); return }
        #expect(s.isResubscribe)
        expectRoundTrips(events)
    }

    @Test(arguments: [
        ("Consumable", "purchase.consumable"), ("Non-Consumable", "purchase.non_consumable"),
        ("Non-Renewing Subscription", "purchase.non_renewing")
    ])
    func oneTimePurchases(_ type: String, _ stored: String) throws {
        let t = try transaction(AppStorePayloads.transaction(id: "3000000001", original: "3000000001", product: "coins", type: type, expires: nil))
        let events = try ingest.events(transaction: t, renewalInfo: renewalInfo(original: "3000000001"), appUserID: "u1")
        #expect(events.map { $0.encoded().type } == [stored, "identity.linked"])  // renewal info ignored for one-time purchases
        #expect(events[0].idempotencyKey == "tx:3000000001")
        expectRoundTrips(events)
    }

    @Test func refundAndFamilyRevocation() throws {
        let refunded = try transaction(
            AppStorePayloads.transaction(
                id: "3000000002", original: "3000000002", product: "coins", type: "Consumable", expires: nil,
                revocation: jan1 + 5 * day, revocationReason: 0, revocationType: "REFUND_FULL"))
        let events = try ingest.events(transaction: refunded, appUserID: "u1")
        guard case .refunded(let refund) = events[1] else { Issue.record("\(events)"); return }
        #expect(refund.transactionID == "3000000002" && refund.refundDate == instant(jan1 + 5 * day) && refund.reason == "0")
        // Keyed by the revocation date, so a second upload of the same refunded transaction (signed later) is the same fact.
        let again = try transaction(
            AppStorePayloads.transaction(
                id: "3000000002", original: "3000000002", product: "coins", type: "Consumable", expires: nil,
                revocation: jan1 + 5 * day, revocationReason: 0, revocationType: "REFUND_FULL", signed: jan1 + 60 * day))
        #expect(try ingest.events(transaction: again, appUserID: "u1").map(\.idempotencyKey) == events.map(\.idempotencyKey))

        let shared = try transaction(
            AppStorePayloads.transaction(
                id: "2000000003", original: "2000000003", revocation: jan1 + 6 * day, ownership: "FAMILY_SHARED"))
        let revoked = try ingest.events(transaction: shared, appUserID: "u2")
        #expect(
            revoked[1]
                == .revoked(
                    Revocation(
                        subscription: SubscriptionRef(
                            appUserID: "u2", productID: "monthly", originalTransactionID: "2000000003",
                            subscriptionGroupID: "21000001", environment: .sandbox, signedDate: instant(jan1 + 6 * day)),
                        transactionID: "2000000003", revocationDate: instant(jan1 + 6 * day))))
        expectRoundTrips(events + revoked)
    }

    @Test func appAccountTokenLinks() throws {
        let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        let t = try transaction(AppStorePayloads.transaction(id: "2000000001", original: "2000000001", token: token))
        let mapped = TransactionIngest(appAccountTokens: .mapping { $0 == token ? "owner" : nil })
        let events = try mapped.events(transaction: t, appUserID: "u1")
        #expect(Array(events.suffix(2)) == [link("u1", "2000000001"), link("owner", "2000000001", source: .appAccountToken)])
        // The token names the uploader: one link, not two with the same key.
        let same = try TransactionIngest(appAccountTokens: .tokenIsAppUserID).events(transaction: t, appUserID: token)
        #expect(same.filter { if case .linked = $0 { true } else { false } }.count == 1)
        #expect(try ingest.events(transaction: t, appUserID: "u1").count == 2)
        expectRoundTrips(events)
    }

    @Test func unknownProductTypeStillLinks() throws {
        let t = try transaction(AppStorePayloads.transaction(id: "4000000001", original: "4000000001", type: "Something New", expires: nil))
        #expect(try ingest.events(transaction: t, appUserID: "u1") == [link("u1", "4000000001")])
    }

    @Test func inconsistentUploadsAreRefused() throws {
        let t = try transaction(AppStorePayloads.transaction(id: "2000000001", original: "2000000001"))
        #expect(throws: IngestError.self) { try ingest.events(transaction: t, renewalInfo: renewalInfo(original: "999"), appUserID: "u1") }
        let noID = try transaction(#"{"originalTransactionId":"1","productId":"monthly","purchaseDate":1,"environment":"Sandbox"}"#)
        #expect(throws: IngestError.missingField("transaction.transactionId")) { try ingest.events(transaction: noID, appUserID: "u1") }
    }
}
