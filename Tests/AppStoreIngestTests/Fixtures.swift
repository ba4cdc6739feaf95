import AppStoreIngest
import AppStoreVerification
import ExactJSON
import LedgerDomain
import Testing

/// Realistic App Store payloads, decoded with the verification module's own decoders (as after verification).

/// 2026-01-01T00:00:00Z in Apple's epoch milliseconds.
let jan1: Int64 = 1_767_225_600_000
let day: Int64 = 86_400_000

func parse(_ text: String) throws -> JSONValue {
    try JSONParser.parse(Array(text.utf8))
}

/// A JWSTransactionDecodedPayload as Apple writes it (field order and types), compact. `purchase` is a JSON number
/// literal so that fractional milliseconds can be written.
func transactionJSON(
    id: String, original: String, product: String = "monthly", type: String = "Auto-Renewable Subscription",
    purchase: String = "\(jan1 + 123)", originalPurchase: Int64? = jan1 + 123, expires: Int64? = jan1 + 31 * day,
    reason: String = "PURCHASE", token: String? = nil, revocation: Int64? = nil, revocationReason: Int? = nil,
    revocationType: String? = nil, ownership: String = "PURCHASED", offerType: Int? = nil,
    environment: String = "Sandbox", signed: Int64 = jan1 + 40 * day
) -> String {
    var fields: [String] = [
        #""transactionId":"\#(id)""#, #""originalTransactionId":"\#(original)""#,
    ]
    if type == "Auto-Renewable Subscription" { fields.append(#""webOrderLineItemId":"2000000\#(id.filter(\.isNumber))""#) }
    fields += [#""bundleId":"com.example.app""#, #""productId":"\#(product)""#]
    if type == "Auto-Renewable Subscription" { fields.append(#""subscriptionGroupIdentifier":"21000001""#) }
    fields.append(#""purchaseDate":\#(purchase)"#)
    if let originalPurchase { fields.append(#""originalPurchaseDate":\#(originalPurchase)"#) }
    if let expires { fields.append(#""expiresDate":\#(expires)"#) }
    fields += [#""quantity":1"#, #""type":"\#(type)""#]
    if let token { fields.append(#""appAccountToken":"\#(token)""#) }
    fields += [#""inAppOwnershipType":"\#(ownership)""#, #""signedDate":\#(signed)"#]
    if let revocation { fields.append(#""revocationDate":\#(revocation)"#) }
    if let revocationReason { fields.append(#""revocationReason":\#(revocationReason)"#) }
    if let revocationType { fields.append(#""revocationType":"\#(revocationType)""#) }
    if let offerType { fields += [#""offerType":\#(offerType)"#, #""offerDiscountType":"FREE_TRIAL""#, #""offerPeriod":"P1W""#] }
    fields += [
        #""environment":"\#(environment)""#, #""transactionReason":"\#(reason)""#, #""storefront":"USA""#,
        #""storefrontId":"143441""#, #""price":9990"#, #""currency":"USD""#, #""appTransactionId":"704289572311513871""#,
    ]
    return "{" + fields.joined(separator: ",") + "}"
}

func transaction(_ json: String) throws -> TransactionPayload {
    try TransactionPayload(json: parse(json))
}

func renewalInfo(
    original: String, product: String = "monthly", next: String = "monthly", autoRenew: Int = 1,
    signed: Int64 = jan1 + 41 * day
) throws -> RenewalInfoPayload {
    try RenewalInfoPayload(json: parse(
        #"{"originalTransactionId":"\#(original)","autoRenewProductId":"\#(next)","productId":"\#(product)","autoRenewStatus":\#(autoRenew),"renewalPrice":9990,"currency":"USD","signedDate":\#(signed),"environment":"Sandbox","recentSubscriptionStartDate":\#(jan1),"renewalDate":\#(jan1 + 31 * day)}"#))
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
        fields.append(#""data":{"appAppleId":1234,"bundleId":"com.example.app","bundleVersion":"42","environment":"Sandbox","signedTransactionInfo":"eyJhbGciOiJFUzI1NiJ9.e30.c2ln","signedRenewalInfo":"eyJhbGciOiJFUzI1NiJ9.e30.c2ln","status":1}"#)
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
