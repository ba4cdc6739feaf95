import AppStoreIngest
import AppStoreSamples
import AppStoreVerification
import Foundation
import LedgerDomain
import Testing
import UTCTime

/// Every notification type and subtype the mapping handles, signed like Apple's (ES256, a three-certificate x5c
/// chain to a trusted root, the transaction and renewal info as nested JWS), verified and decoded by the real
/// verifier, then turned into events: no hand-built `DecodedNotification` in between.
@Suite("Signed notifications, every type, through the real decoder")
struct SignedNotificationMatrixTests {
    /// One row: what Apple sends, and the typed events (after the verbatim record) the ledger must record.
    struct Row: Sendable, CustomTestStringConvertible {
        var type: String
        var subtype: String?
        var productType = "Auto-Renewable Subscription"
        /// The renewal info's next product (the current one is `monthly`).
        var next = "monthly"
        var revoked = false
        var summary: String?
        var expected: [String]
        /// A detail of the typed event to check beyond its type.
        var check: (@Sendable (LedgerEvent) -> Bool)?

        var testDescription: String { subtype.map { "\(type)/\($0)" } ?? type }
    }

    static let rows: [Row] = [
        Row(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", expected: ["subscription.started"],
            check: { if case .subscriptionStarted(let s) = $0 { !s.isResubscribe } else { false } }),
        Row(
            type: "SUBSCRIBED", subtype: "RESUBSCRIBE", expected: ["subscription.started"],
            check: { if case .subscriptionStarted(let s) = $0 { s.isResubscribe } else { false } }),
        Row(type: "OFFER_REDEEMED", subtype: "INITIAL_BUY", expected: ["subscription.started"]),
        Row(
            type: "OFFER_REDEEMED", subtype: "RESUBSCRIBE", expected: ["subscription.started"],
            check: { if case .subscriptionStarted(let s) = $0 { s.isResubscribe } else { false } }),
        Row(
            type: "OFFER_REDEEMED", subtype: "UPGRADE", next: "yearly", expected: ["subscription.renewal_preference_changed"],
            check: { Self.kind($0) == .upgrade }),
        Row(
            type: "OFFER_REDEEMED", subtype: "DOWNGRADE", next: "weekly", expected: ["subscription.renewal_preference_changed"],
            check: { Self.kind($0) == .downgrade }),
        Row(type: "DID_RENEW", expected: ["subscription.renewed"]),
        Row(type: "DID_RENEW", subtype: "BILLING_RECOVERY", expected: ["subscription.billing_recovered"]),
        Row(
            type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", next: "yearly", expected: ["subscription.renewal_preference_changed"],
            check: { Self.kind($0) == .upgrade }),
        Row(
            type: "DID_CHANGE_RENEWAL_PREF", subtype: "DOWNGRADE", next: "weekly", expected: ["subscription.renewal_preference_changed"],
            check: { Self.kind($0) == .downgrade }),
        // No subtype: back to the current product is a withdrawn downgrade, another product a deferred crossgrade.
        Row(
            type: "DID_CHANGE_RENEWAL_PREF", next: "monthly", expected: ["subscription.renewal_preference_changed"],
            check: { Self.kind($0) == .downgradeCancelled }),
        Row(
            type: "DID_CHANGE_RENEWAL_PREF", next: "monthly_plus", expected: ["subscription.renewal_preference_changed"],
            check: {
                if case .renewalPreferenceChanged(let c) = $0 { c.kind == .crossgrade && c.autoRenewProductID == "monthly_plus" } else { false }
            }),
        Row(
            type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_ENABLED", expected: ["subscription.auto_renew_changed"],
            check: { if case .autoRenewChanged(let c) = $0 { c.enabled } else { false } }),
        Row(
            type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", expected: ["subscription.auto_renew_changed"],
            check: { if case .autoRenewChanged(let c) = $0 { !c.enabled } else { false } }),
        Row(
            type: "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD", expected: ["subscription.billing_failed"],
            check: { if case .billingFailed(let f) = $0 { f.gracePeriodExpiresAt != nil && f.expiresDate != nil } else { false } }),
        Row(
            type: "DID_FAIL_TO_RENEW", expected: ["subscription.billing_failed"],
            check: { if case .billingFailed(let f) = $0 { f.gracePeriodExpiresAt == nil } else { false } }),
        Row(type: "GRACE_PERIOD_EXPIRED", expected: ["subscription.grace_period_expired"]),
        Row(type: "EXPIRED", subtype: "VOLUNTARY", expected: ["subscription.expired"], check: { Self.reason($0) == .voluntary }),
        Row(type: "EXPIRED", subtype: "BILLING_RETRY", expected: ["subscription.expired"], check: { Self.reason($0) == .billingError }),
        Row(
            type: "EXPIRED", subtype: "PRICE_INCREASE", expected: ["subscription.expired"],
            check: { Self.reason($0) == .priceIncreaseDeclined }),
        Row(
            type: "EXPIRED", subtype: "PRODUCT_NOT_FOR_SALE", expected: ["subscription.expired"],
            check: { Self.reason($0) == .productUnavailable }),
        Row(
            type: "PRICE_INCREASE", subtype: "PENDING", expected: ["subscription.price_increase"],
            check: { if case .priceIncrease(let p) = $0 { p.consent == .pending } else { false } }),
        Row(
            type: "PRICE_INCREASE", subtype: "ACCEPTED", expected: ["subscription.price_increase"],
            check: { if case .priceIncrease(let p) = $0 { p.consent == .accepted } else { false } }),
        Row(type: "REFUND", revoked: true, expected: ["transaction.refunded"]),
        Row(type: "REFUND_DECLINED", expected: ["transaction.refund_declined"]),
        Row(type: "REFUND_REVERSED", expected: ["transaction.refund_reversed"]),
        Row(type: "REVOKE", revoked: true, expected: ["transaction.revoked"]),
        Row(type: "CONSUMPTION_REQUEST", productType: "Consumable", expected: ["transaction.consumption_requested"]),
        Row(type: "RENEWAL_EXTENDED", expected: ["subscription.renewal_extended"]),
        Row(type: "ONE_TIME_CHARGE", productType: "Consumable", expected: ["purchase.consumable"]),
        Row(type: "ONE_TIME_CHARGE", productType: "Non-Consumable", expected: ["purchase.non_consumable"]),
        Row(type: "ONE_TIME_CHARGE", productType: "Non-Renewing Subscription", expected: ["purchase.non_renewing"]),
        // Recorded verbatim only.
        Row(type: "TEST", expected: []),
        Row(type: "METADATA_UPDATE", expected: []),
        Row(type: "MIGRATION", expected: []),
        Row(type: "PRICE_CHANGE", expected: []),
        Row(type: "RENEWAL_EXTENSION", subtype: "FAILURE", expected: []),
        Row(
            type: "RENEWAL_EXTENSION", subtype: "SUMMARY",
            summary: #"{"requestIdentifier":"req-42","environment":"Sandbox","appAppleId":1234,"bundleId":"com.example.app","productId":"monthly","#
                + #""storefrontCountryCodes":["USA","CAN"],"failedCount":3,"succeededCount":1200}"#,
            expected: [])
    ]

    static func kind(_ event: LedgerEvent) -> RenewalChangeKind? {
        if case .renewalPreferenceChanged(let c) = event { return c.kind }
        return nil
    }

    static func reason(_ event: LedgerEvent) -> ExpiryReason? {
        if case .subscriptionExpired(let e) = event { return e.reason }
        return nil
    }

    let signer: AppStoreTestSigner
    let verifier: AppStoreVerifier

    init() throws {
        signer = try AppStoreTestSigner()
        verifier = AppStoreVerifier(
            configuration: AppConfiguration(bundleId: "com.example.app", appAppleId: 1234, environment: .sandbox),
            roots: TrustRoots(certificates: signer.roots))
    }

    @Test(arguments: rows)
    func signedNotification(_ row: Row) async throws {
        let signed = jan1 + 20 * day
        let withTransaction = row.summary == nil && !["TEST", "RENEWAL_EXTENSION"].contains(row.type)
        let transactionJSON = AppStorePayloads.transaction(
            id: "2000000042", original: "2000000001", type: row.productType,
            expires: row.productType == "Auto-Renewable Subscription" ? jan1 + 31 * day : nil,
            revocation: row.revoked ? jan1 + 19 * day : nil, revocationReason: row.revoked ? 1 : nil,
            revocationType: row.type == "REVOKE" ? "FAMILY_REVOKE" : nil,
            ownership: row.type == "REVOKE" ? "FAMILY_SHARED" : "PURCHASED", signed: signed)
        let renewalJSON = AppStorePayloads.renewalInfo(
            original: "2000000001", next: row.next, signed: signed,
            extra: row.subtype == "GRACE_PERIOD" ? [#""gracePeriodExpiresDate":\#(jan1 + 47 * day)"#, #""isInBillingRetryPeriod":true"#] : [])
        let payload = AppStorePayloads.notification(
            type: row.type, subtype: row.subtype, uuid: "6a0c5b7e-0000-4000-8000-000000000001", signed: signed,
            signedTransaction: withTransaction ? try signer.sign(transactionJSON) : nil,
            signedRenewalInfo: withTransaction && row.productType == "Auto-Renewable Subscription" ? try signer.sign(renewalJSON) : nil,
            summary: row.summary)
        let verified = try await verifier.verifyNotification(
            try signer.sign(payload), now: Instant(epochMilliseconds: signed))
        let events = try NotificationIngest().events(for: verified)

        guard case .appStoreNotification(let record)? = events.first else {
            Issue.record("the verbatim record must come first: \(events)")
            return
        }
        #expect(record.notificationType == row.type && record.subtype == row.subtype)
        #expect(record.rawJSON == payload)
        let typed = Array(events.dropFirst()).filter { $0.encoded().type != "identity.linked" }
        #expect(typed.map { $0.encoded().type } == row.expected)
        if let check = row.check, let event = typed.first {
            #expect(check(event), "\(event)")
        }
        if row.summary != nil {
            #expect(
                record.renewalExtensionSummary
                    == RenewalExtensionSummary(
                        requestIdentifier: "req-42", productID: "monthly", storefrontCountryCodes: ["USA", "CAN"],
                        succeededCount: 1200, failedCount: 3))
        } else {
            #expect(record.renewalExtensionSummary == nil)
        }
        expectRoundTrips(events)
    }
}
