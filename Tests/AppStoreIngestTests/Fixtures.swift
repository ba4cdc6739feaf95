import AppStoreIngest
import AppStoreSamples
import AppStoreVerification
import ExactJSON
import LedgerDomain
import Testing
import UTCTime

/// Realistic App Store payloads, decoded with the verification module's own decoders (as after verification).

/// 2026-01-01T00:00:00Z in Apple's epoch milliseconds.
let jan1 = AppStorePayloads.jan1
let day = AppStorePayloads.day

func parse(_ text: String) throws -> JSONValue {
    try JSONParser.parse(Array(text.utf8))
}

func transaction(_ json: String) throws -> TransactionPayload {
    try TransactionPayload(json: parse(json))
}

func renewalInfo(
    original: String, product: String = "monthly", next: String = "monthly", autoRenew: Int = 1,
    signed: Int64 = jan1 + 41 * day
) throws -> RenewalInfoPayload {
    try RenewalInfoPayload(
        json: parse(
            AppStorePayloads.renewalInfo(
                original: original, product: product, next: next, autoRenew: autoRenew, signed: signed)))
}

/// A ResponseBodyV2DecodedPayload with `data`; the nested JWS strings are opaque here (the verifier has checked
/// and decoded them: they are passed as `VerifiedNotification.transaction` / `.renewalInfo`).
func notificationJSON(
    type: String, subtype: String? = nil, uuid: String = "0b8b0b3c-5f2e-4d7a-9d1e-000000000001",
    signed: Int64 = jan1 + 2 * day, withData: Bool = true
) -> String {
    var fields = [#""notificationType":"\#(type)""#]
    if let subtype { fields.append(#""subtype":"\#(subtype)""#) }
    fields.append(#""notificationUUID":"\#(uuid)""#)
    if withData {
        fields.append(
            #""data":{"appAppleId":1234,"bundleId":"com.example.app","bundleVersion":"42","environment":"Sandbox","#
                + #""signedTransactionInfo":"eyJhbGciOiJFUzI1NiJ9.e30.c2ln","signedRenewalInfo":"eyJhbGciOiJFUzI1NiJ9.e30.c2ln","status":1}"#)
    }
    fields += [#""version":"2.0""#, #""signedDate":\#(signed)"#]
    return "{" + fields.joined(separator: ",") + "}"
}

func notification(
    _ json: String, transaction: TransactionPayload? = nil, renewalInfo: RenewalInfoPayload? = nil
) throws -> VerifiedNotification {
    VerifiedNotification(payload: try NotificationPayload(json: parse(json)), transaction: transaction, renewalInfo: renewalInfo)
}

/// An in-app record of a legacy receipt, as the receipt parser fills it.
func receiptRecord(
    id: String, original: String, product: String = "monthly", purchase: Int64 = jan1 + 123,
    originalPurchase: Int64? = jan1 + 123, expires: Int64? = jan1 + 31 * day, cancellation: Int64? = nil,
    webOrderLineItemID: Int64 = 0, intro: Bool = false
) -> InAppPurchaseReceipt {
    var r = InAppPurchaseReceipt()
    r.quantity = 1
    r.productId = product
    r.transactionId = id
    r.originalTransactionId = original
    r.purchaseDateMs = purchase
    r.originalPurchaseDateMs = originalPurchase
    r.expiresDateMs = expires
    r.cancellationDateMs = cancellation
    r.webOrderLineItemId = webOrderLineItemID
    r.isInIntroOfferPeriod = intro
    return r
}

func receipt(_ records: [InAppPurchaseReceipt], type: String = "ProductionSandbox") -> AppReceipt {
    var r = AppReceipt()
    r.receiptType = type
    r.bundleId = "com.example.app"
    r.applicationVersion = "42"
    r.receiptCreationDateMs = jan1 + 50 * day
    r.inAppPurchases = records
    return r
}

/// Every event survives the stored form unchanged.
func expectRoundTrips(_ events: [LedgerEvent], sourceLocation: SourceLocation = #_sourceLocation) {
    for event in events {
        let stored = event.encoded()
        let decoded = try? LedgerEvent.decode(type: stored.type, schemaVersion: stored.schemaVersion, payload: stored.payload)
        #expect(decoded == event, "\(stored.type) does not round-trip", sourceLocation: sourceLocation)
    }
}

func instant(_ ms: Int64) -> Instant { Instant(epochMilliseconds: ms) }
