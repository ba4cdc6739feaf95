/// App Store payload JSON as Apple writes it (field order and types), compact: test data, and `ledger appstore sample`.
public enum AppStorePayloads {
    /// 2026-01-01T00:00:00Z in Apple's epoch milliseconds.
    public static let jan1: Int64 = 1_767_225_600_000
    public static let day: Int64 = 86_400_000

    /// A JWSTransactionDecodedPayload as Apple writes it (field order and types), compact. `purchase` is a JSON number
    /// literal so that fractional milliseconds can be written.
    public static func transaction(
        id: String, original: String, product: String = "monthly", type: String = "Auto-Renewable Subscription",
        purchase: String = "\(jan1 + 123)", originalPurchase: Int64? = jan1 + 123, expires: Int64? = jan1 + 31 * day,
        reason: String = "PURCHASE", token: String? = nil, revocation: Int64? = nil, revocationReason: Int? = nil,
        revocationType: String? = nil, ownership: String = "PURCHASED", offerType: Int? = nil,
        environment: String = "Sandbox", signed: Int64 = jan1 + 40 * day, bundleID: String = "com.example.app",
        group: String = "21000001", extra: [String] = []
    ) -> String {
        var fields: [String] = [
            #""transactionId":"\#(id)""#, #""originalTransactionId":"\#(original)""#
        ]
        if type == "Auto-Renewable Subscription" { fields.append(#""webOrderLineItemId":"2000000\#(id.filter(\.isNumber))""#) }
        fields += [#""bundleId":"\#(bundleID)""#, #""productId":"\#(product)""#]
        if type == "Auto-Renewable Subscription" { fields.append(#""subscriptionGroupIdentifier":"\#(group)""#) }
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
            #""storefrontId":"143441""#, #""price":9990"#, #""currency":"USD""#, #""appTransactionId":"704289572311513871""#
        ]
        fields += extra
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A JWSRenewalInfoDecodedPayload.
    public static func renewalInfo(
        original: String, product: String = "monthly", next: String = "monthly", autoRenew: Int = 1,
        signed: Int64 = jan1 + 41 * day, environment: String = "Sandbox", extra: [String] = []
    ) -> String {
        let fields =
            [
                #""originalTransactionId":"\#(original)""#, #""autoRenewProductId":"\#(next)""#, #""productId":"\#(product)""#,
                #""autoRenewStatus":\#(autoRenew)"#, #""renewalPrice":9990"#, #""currency":"USD""#, #""signedDate":\#(signed)"#,
                #""environment":"\#(environment)""#, #""recentSubscriptionStartDate":\#(jan1)"#,
                #""renewalDate":\#(jan1 + 31 * day)"#
            ] + extra
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A ResponseBodyV2DecodedPayload carrying the given signed transaction and renewal info.
    public static func notification(
        type: String, subtype: String? = nil, uuid: String, signed: Int64, environment: String = "Sandbox",
        bundleID: String = "com.example.app", appAppleID: Int64 = 1234, signedTransaction: String?, signedRenewalInfo: String? = nil,
        summary: String? = nil
    ) -> String {
        var data = [
            #""appAppleId":\#(appAppleID)"#, #""bundleId":"\#(bundleID)""#, #""bundleVersion":"42""#,
            #""environment":"\#(environment)""#
        ]
        if let signedTransaction { data.append(#""signedTransactionInfo":"\#(signedTransaction)""#) }
        if let signedRenewalInfo { data.append(#""signedRenewalInfo":"\#(signedRenewalInfo)""#) }
        data.append(#""status":1"#)
        var fields = [#""notificationType":"\#(type)""#]
        if let subtype { fields.append(#""subtype":"\#(subtype)""#) }
        // `summary` (RENEWAL_EXTENSION / SUMMARY) replaces `data`: the two are exclusive.
        let body = summary.map { #""summary":"# + $0 } ?? #""data":{"# + data.joined(separator: ",") + "}"
        fields += [#""notificationUUID":"\#(uuid)""#, body, #""version":"2.0""#, #""signedDate":\#(signed)"#]
        return "{" + fields.joined(separator: ",") + "}"
    }
}
