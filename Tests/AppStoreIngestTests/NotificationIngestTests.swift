import AppStoreSamples
import AppStoreIngest
import AppStoreVerification
import ExactJSON
import Foundation
import LedgerDomain
import Testing

@Suite("Verified notification → events")
struct NotificationIngestTests {
    /// A first purchase with an introductory free trial, its purchase date in Xcode's fractional milliseconds.
    func tx() throws -> TransactionPayload {
        try transaction(AppStorePayloads.transaction(id: "2000000001", original: "2000000001", purchase: "\(jan1 + 123).7297", offerType: 1))
    }

    @Test func subscribedInitialBuy() throws {
        let json = notificationJSON(type: "SUBSCRIBED", subtype: "INITIAL_BUY")
        let events = try NotificationIngest().events(for: notification(json, transaction: try tx(), renewalInfo: renewalInfo(original: "2000000001")))
        #expect(events.count == 2)
        guard case .appStoreNotification(let raw)? = events.first, case .subscriptionStarted(let started)? = events.last else {
            Issue.record("expected the verbatim record then subscription.started: \(events)")
            return
        }
        #expect(raw.rawJSON == json)  // byte for byte, number literals and member order included
        #expect(raw.notificationType == "SUBSCRIBED" && raw.subtype == "INITIAL_BUY")
        #expect(raw.environment == .sandbox && raw.originalTransactionID == "2000000001")
        #expect(raw.signedDate == instant(jan1 + 2 * day))
        let t = started.transaction
        #expect(!started.isResubscribe)
        #expect(t.appUserID == nil)  // notifications name no user unless the token policy says so
        #expect(t.purchaseDate == instant(jan1 + 123))  // .7297 ms truncated
        #expect(t.signedDate == t.purchaseDate)
        #expect(t.expiresDate == instant(jan1 + 31 * day))
        #expect(t.price == Money(milliunits: 9990, currency: "USD"))
        #expect(t.offer == Offer(type: .introductory, paymentMode: "FREE_TRIAL", period: "P1W"))
        #expect(t.appTransactionID == "704289572311513871")
        #expect(t.subscriptionGroupID == "21000001" && t.storefront == "USA" && t.webOrderLineItemID == "20000002000000001")
        #expect(t.environment == .sandbox && !t.familyShared && t.quantity == 1)
        #expect(events.map(\.idempotencyKey) == ["notification:0b8b0b3c-5f2e-4d7a-9d1e-000000000001", "tx:2000000001"])
        expectRoundTrips(events)
    }

    @Test func fractionalMillisecondsSurviveInTheRecordOnly() throws {
        let json = notificationJSON(type: "DID_RENEW", signed: 0).replacingOccurrences(
            of: #""signedDate":0"#,
            with: #""signedDate":1767398400000.9999"#)
        let decoded = try NotificationIngest().decode(notification(json, transaction: try tx()))
        #expect(decoded.signedDate == instant(1_767_398_400_000))
        #expect(decoded.rawJSON.contains("1767398400000.9999"))
        #expect(decoded.transaction?.purchaseDate == instant(jan1 + 123))
    }

    @Test func allFieldsOfTheDecodedNotification() throws {
        let refunded = try transaction(
            AppStorePayloads.transaction(
                id: "2000000005", original: "2000000001", revocation: jan1 + 3 * day, revocationReason: 1, revocationType: "REFUND_FULL"))
        let info = try renewalInfo(original: "2000000001", next: "yearly", autoRenew: 0)
        let decoded = try NotificationIngest().decode(notification(notificationJSON(type: "REFUND"), transaction: refunded, renewalInfo: info))
        #expect(decoded.notificationType == "REFUND" && decoded.subtype == nil)
        #expect(decoded.notificationUUID == "0b8b0b3c-5f2e-4d7a-9d1e-000000000001")
        #expect(decoded.environment == .sandbox)
        #expect(decoded.productType == .autoRenewable)
        #expect(decoded.revocationDate == instant(jan1 + 3 * day) && decoded.revocationReason == "1")
        #expect(decoded.renewal == RenewalInfo(autoRenewProductID: "yearly", autoRenewEnabled: false, renewalDate: instant(jan1 + 31 * day)))
        let events = AppStoreNotificationMapping.events(for: decoded)
        #expect(
            events.dropFirst().first
                == .refunded(
                    Refund(
                        subscription: SubscriptionRef(
                            productID: "monthly", originalTransactionID: "2000000001", subscriptionGroupID: "21000001",
                            environment: .sandbox, signedDate: instant(jan1 + 2 * day)),
                        transactionID: "2000000005", refundDate: instant(jan1 + 3 * day), reason: "1")))
        expectRoundTrips(events)
    }

    @Test(arguments: ["TEST", "SOMETHING_APPLE_ADDS_IN_2027"])
    func unknownAndTransactionlessTypesAreKept(_ type: String) throws {
        let json = notificationJSON(type: type, subtype: "BRAND_NEW_SUBTYPE")
        let events = try NotificationIngest().events(for: notification(json))
        #expect(
            events == [
                .appStoreNotification(
                    AppStoreNotification(
                        notificationType: type, subtype: "BRAND_NEW_SUBTYPE", notificationUUID: "0b8b0b3c-5f2e-4d7a-9d1e-000000000001",
                        signedDate: instant(jan1 + 2 * day), environment: .sandbox, rawJSON: json))
            ])
        let appends = StreamNaming.appends(for: events)
        #expect(appends.map(\.stream) == ["notification:0b8b0b3c-5f2e-4d7a-9d1e-000000000001"])
        expectRoundTrips(events)
    }

    @Test func unknownTypeWithTransactionGoesToItsStream() throws {
        let events = try NotificationIngest().events(for: notification(notificationJSON(type: "NEW_THING"), transaction: try tx()))
        #expect(events.count == 1)
        #expect(StreamNaming.appends(for: events).map(\.stream) == ["otx:2000000001"])
    }

    @Test func appAccountTokenNamesTheUser() throws {
        let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        let withToken = try transaction(AppStorePayloads.transaction(id: "2000000001", original: "2000000001", token: token))
        let n = try notification(notificationJSON(type: "SUBSCRIBED", subtype: "INITIAL_BUY"), transaction: withToken)
        let events = try NotificationIngest(appAccountTokens: .tokenIsAppUserID).events(for: n)
        #expect(events.count == 3)
        guard case .subscriptionStarted(let s) = events[1] else { Issue.record("\(events)"); return }
        #expect(s.transaction.appUserID == token && s.transaction.developerPayload == token)
        #expect(
            events[2]
                == .linked(
                    TransactionLink(
                        appUserID: token, originalTransactionIDs: ["2000000001"], linkedAt: instant(jan1 + 123), source: .appAccountToken)))
        let mapped = try NotificationIngest(appAccountTokens: .mapping { $0 == token ? "user-42" : nil }).events(for: n)
        #expect(mapped.last?.appUserID == "user-42")
        #expect(try NotificationIngest().events(for: n).count == 2)  // .ignore: no user, no link
        expectRoundTrips(events)
    }

    @Test func notificationsThatCannotBeKeyedAreRefused() throws {
        let json = notificationJSON(type: "TEST").replacingOccurrences(of: #""notificationUUID":"0b8b0b3c-5f2e-4d7a-9d1e-000000000001","#, with: "")
        #expect(throws: IngestError.missingField("notificationUUID")) { try NotificationIngest().events(for: notification(json)) }
    }

    @Test func incompleteTransactionKeepsTheRecord() throws {
        let broken = try transaction(#"{"originalTransactionId":"1","productId":"monthly","environment":"Sandbox"}"#)
        let events = try NotificationIngest().events(for: notification(notificationJSON(type: "DID_RENEW"), transaction: broken))
        #expect(events.count == 1)
    }
}
