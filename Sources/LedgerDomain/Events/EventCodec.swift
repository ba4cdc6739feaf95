import Foundation
import UTCTime

/// Why a stored event could not be read back.
public enum EventDecodingError: Error, Sendable, Equatable {
    /// The type name is not one this version knows (a newer writer, or a typo).
    case unknownType(String)
    /// The schema version is newer than this reader, or was never issued.
    case unsupportedVersion(type: String, schemaVersion: Int32)
    /// The payload does not match the schema version it claims.
    case malformedPayload(type: String, schemaVersion: Int32, message: String)
}

extension LedgerEvent {
    /// The stored form: type name, schema version and payload as a JSON object with sorted keys.
    ///
    /// Deterministic (sorted keys, integers only) so that the same fact always hashes the same in the log's
    /// hash chain. Encoding these payloads cannot fail (no floats, string keys only); should the encoder ever
    /// fail, the payload is `{}` rather than a crash, and `decode` rejects it loudly.
    public func encoded() -> (type: String, schemaVersion: Int32, payload: String) {
        switch self {
        case .purchaseConsumable(let p): ("purchase.consumable", 1, EventCodec.json(p))
        case .purchaseNonConsumable(let p): ("purchase.non_consumable", 1, EventCodec.json(p))
        case .purchaseNonRenewing(let p): ("purchase.non_renewing", 1, EventCodec.json(p))
        case .externalPurchase(let p): ("purchase.external", 1, EventCodec.json(p))
        case .consumed(let p): ("purchase.consumed", 1, EventCodec.json(p))
        case .subscriptionStarted(let p): ("subscription.started", 1, EventCodec.json(p))
        case .subscriptionRenewed(let p): ("subscription.renewed", 1, EventCodec.json(p))
        case .billingFailed(let p): ("subscription.billing_failed", 1, EventCodec.json(p))
        case .gracePeriodExpired(let p): ("subscription.grace_period_expired", 1, EventCodec.json(p))
        case .billingRecovered(let p): ("subscription.billing_recovered", 1, EventCodec.json(p))
        case .subscriptionExpired(let p): ("subscription.expired", 1, EventCodec.json(p))
        case .autoRenewChanged(let p): ("subscription.auto_renew_changed", 1, EventCodec.json(p))
        case .renewalPreferenceChanged(let p): ("subscription.renewal_preference_changed", 1, EventCodec.json(p))
        case .priceIncrease(let p): ("subscription.price_increase", 1, EventCodec.json(p))
        case .renewalExtended(let p): ("subscription.renewal_extended", 1, EventCodec.json(p))
        case .refunded(let p): ("transaction.refunded", 1, EventCodec.json(p))
        case .refundDeclined(let p): ("transaction.refund_declined", 1, EventCodec.json(p))
        case .refundReversed(let p): ("transaction.refund_reversed", 1, EventCodec.json(p))
        case .revoked(let p): ("transaction.revoked", 1, EventCodec.json(p))
        case .consumptionRequested(let p): ("transaction.consumption_requested", 1, EventCodec.json(p))
        case .consumptionInformationSent(let p): ("transaction.consumption_information_sent", 2, EventCodec.json(p))
        case .consumptionAnswerWithheld(let p): ("transaction.consumption_answer_withheld", 1, EventCodec.json(p))
        case .consumptionConsentRecorded(let p): ("user.consumption_consent_recorded", 1, EventCodec.json(p))
        case .grantGiven(let p): ("user.grant_given", 1, EventCodec.json(p))
        case .grantRevoked(let p): ("user.grant_revoked", 1, EventCodec.json(p))
        case .linked(let p): ("identity.linked", 1, EventCodec.json(p))
        case .transferred(let p): ("identity.transferred", 2, EventCodec.json(p))
        case .appStoreNotification(let p): ("appstore.notification", 1, EventCodec.json(p))
        }
    }

    /// Reads a stored event of any schema version ever written; older versions are upcast to the current shape.
    public static func decode(type: String, schemaVersion: Int32, payload: String) throws -> LedgerEvent {
        if schemaVersion == 1, let event = readCommon(type: type, payload: payload) { return event }
        return try decodeGenerally(type: type, schemaVersion: schemaVersion, payload: payload)
    }

    /// `decode` with `JSONDecoder` alone: what the fast reader must always agree with.
    static func decodeGenerally(type: String, schemaVersion: Int32, payload: String) throws -> LedgerEvent {
        let c = EventCodec(type: type, version: schemaVersion, payload: payload)
        switch type {
        case "purchase.consumable": return .purchaseConsumable(try c.v1())
        case "purchase.non_consumable": return .purchaseNonConsumable(try c.v1())
        case "purchase.non_renewing": return .purchaseNonRenewing(try c.v1())
        case "purchase.external": return .externalPurchase(try c.v1())
        case "purchase.consumed": return .consumed(try c.v1())
        case "subscription.started": return .subscriptionStarted(try c.v1())
        case "subscription.renewed": return .subscriptionRenewed(try c.v1())
        case "subscription.billing_failed": return .billingFailed(try c.v1())
        case "subscription.grace_period_expired": return .gracePeriodExpired(try c.v1())
        case "subscription.billing_recovered": return .billingRecovered(try c.v1())
        case "subscription.expired": return .subscriptionExpired(try c.v1())
        case "subscription.auto_renew_changed": return .autoRenewChanged(try c.v1())
        case "subscription.renewal_preference_changed": return .renewalPreferenceChanged(try c.v1())
        case "subscription.price_increase": return .priceIncrease(try c.v1())
        case "subscription.renewal_extended": return .renewalExtended(try c.v1())
        case "transaction.refunded": return .refunded(try c.v1())
        case "transaction.refund_declined": return .refundDeclined(try c.v1())
        case "transaction.refund_reversed": return .refundReversed(try c.v1())
        case "transaction.revoked": return .revoked(try c.v1())
        case "transaction.consumption_requested": return .consumptionRequested(try c.v1())
        case "transaction.consumption_information_sent":
            switch schemaVersion {
            case 1: return .consumptionInformationSent(try c.decode(ConsumptionInformationSentV1.self).upcast())
            case 2: return .consumptionInformationSent(try c.decode(ConsumptionInformationSent.self))
            default: throw EventDecodingError.unsupportedVersion(type: type, schemaVersion: schemaVersion)
            }
        case "transaction.consumption_answer_withheld": return .consumptionAnswerWithheld(try c.v1())
        case "user.consumption_consent_recorded": return .consumptionConsentRecorded(try c.v1())
        case "user.grant_given": return .grantGiven(try c.v1())
        case "user.grant_revoked": return .grantRevoked(try c.v1())
        case "identity.linked": return .linked(try c.v1())
        case "identity.transferred":
            switch schemaVersion {
            case 1: return .transferred(try c.decode(TransferV1.self).upcast())
            case 2: return .transferred(try c.decode(Transfer.self))
            default: throw EventDecodingError.unsupportedVersion(type: type, schemaVersion: schemaVersion)
            }
        case "appstore.notification": return .appStoreNotification(try c.v1())
        default: throw EventDecodingError.unknownType(type)
        }
    }
}

extension LedgerEvent {
    /// The most common events (one transaction each) read without `JSONDecoder`; nil: let the general decoder read it.
    static func readCommon(type: String, payload: String) -> LedgerEvent? {
        switch type {
        case "subscription.started":
            return TransactionPayloadReader.read(payload, startsSubscription: true).map {
                .subscriptionStarted(SubscriptionStarted(transaction: $0.transaction, isResubscribe: $0.isResubscribe))
            }
        case "subscription.renewed", "subscription.billing_recovered", "purchase.consumable", "purchase.non_consumable",
            "purchase.non_renewing":
            guard let transaction = TransactionPayloadReader.read(payload, startsSubscription: false)?.transaction else { return nil }
            switch type {
            case "subscription.renewed": return .subscriptionRenewed(Renewal(transaction: transaction))
            case "subscription.billing_recovered": return .billingRecovered(Renewal(transaction: transaction))
            case "purchase.consumable": return .purchaseConsumable(Purchase(transaction: transaction))
            case "purchase.non_consumable": return .purchaseNonConsumable(Purchase(transaction: transaction))
            default: return .purchaseNonRenewing(Purchase(transaction: transaction))
            }
        default:
            return nil
        }
    }
}

/// `identity.transferred` schema version 1: one transaction per event. Kept forever so old logs replay.
///
/// This is the pattern for every future shape change: freeze the old payload as a private struct, write an
/// `upcast()` to the current struct, and dispatch on `schemaVersion` in `LedgerEvent.decode`.
struct TransferV1: Decodable {
    var fromUserID: String
    var toUserID: String
    var originalTransactionID: String
    var transferredAt: Instant
    var policy: TransferPolicy?

    func upcast() -> Transfer {
        Transfer(
            fromUserID: fromUserID, toUserID: toUserID, originalTransactionIDs: [originalTransactionID],
            transferredAt: transferredAt, policy: policy ?? .transfer)
    }
}

/// `transaction.consumption_information_sent` schema version 1: an answer sent with the retired V1 body (numeric
/// consumption and delivery codes), without its inputs or Apple's status. Upcast keeping that body as it was.
struct ConsumptionInformationSentV1: Decodable {
    var originalTransactionID: String
    var transactionID: String
    var productID: String
    var environment: StoreEnvironment
    var requestSignedDate: Instant
    var sentAt: Instant
    var consumptionStatus: Int
    var deliveryStatus: Int
    var platform: Int
    var customerConsented: Bool

    func upcast() -> ConsumptionInformationSent {
        ConsumptionInformationSent(
            originalTransactionID: originalTransactionID, transactionID: transactionID, productID: productID, environment: environment,
            requestSignedDate: requestSignedDate, sentAt: sentAt, answer: nil, inputs: nil, appleStatus: nil,
            v1Body: ConsumptionInformationV1Body(
                consumptionStatus: consumptionStatus, deliveryStatus: deliveryStatus, platform: platform,
                customerConsented: customerConsented))
    }
}

/// JSON helpers shared by encoding and decoding.
struct EventCodec {
    let type: String
    let version: Int32
    let payload: String

    /// Decodes a payload of a type whose only version is 1.
    func v1<T: Decodable>() throws -> T {
        guard version == 1 else { throw EventDecodingError.unsupportedVersion(type: type, schemaVersion: version) }
        return try decode(T.self)
    }

    /// One decoder for every payload: making one per event cost about a third of a rebuild's decoding.
    /// (`JSONDecoder` is Sendable: its options are locked; decoding shares no other state.)
    static let decoder = JSONDecoder()

    func decode<T: Decodable>(_: T.Type) throws -> T {
        do {
            return try Self.decoder.decode(T.self, from: Data(payload.utf8))
        } catch {
            throw EventDecodingError.malformedPayload(type: type, schemaVersion: version, message: "\(error)")
        }
    }

    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
