/// A field of an event, other than a user id, that can identify a person: the developer payload (for App Store
/// purchases, the `appAccountToken`, often the app's user id itself) and the verbatim JSON of a notification (it
/// carries Apple's signed transaction and renewal info, and with them the token). The log stores them sealed under
/// their purchase's data key, so that erasing the purchase's owner destroys them (docs/erasure.md, "Sealed fields").
public struct PersonalField: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case developerPayload = "developer_payload"
        case signedPayloads = "signed_payloads"
    }

    public var kind: Kind
    /// The purchase the field is about (an original transaction id, or an external purchase's payment id): the
    /// subject of the data key that seals it.
    public var purchase: String
    public var value: String
}

extension LedgerEvent {
    /// The personal fields the event holds, in field order.
    public var personalFields: [PersonalField] {
        var found: [PersonalField] = []
        _ = mappingPersonalFields { field in
            found.append(field)
            return field.value
        }
        return found
    }

    /// The event with every personal field replaced by `replace`'s answer; nothing else changes. A notification with
    /// no transaction (a test, a summary, an external purchase token) names no purchase, so nobody's key could seal it;
    /// it carries no user's transaction either, and is left as it is. Exhaustive, so a new case is decided here.
    public func mappingPersonalFields(_ replace: (PersonalField) -> String) -> LedgerEvent {
        let event = mappingTransactionFacts { t in
            var t = t
            t.developerPayload = t.developerPayload.map {
                replace(PersonalField(kind: .developerPayload, purchase: t.originalTransactionID, value: $0))
            }
            return t
        }
        switch event {
        case .externalPurchase(var p):
            p.developerPayload = p.developerPayload.map {
                replace(PersonalField(kind: .developerPayload, purchase: p.paymentID, value: $0))
            }
            return .externalPurchase(p)
        case .appStoreNotification(var n):
            guard let purchase = n.originalTransactionID else { return event }
            n.rawJSON = replace(PersonalField(kind: .signedPayloads, purchase: purchase, value: n.rawJSON))
            return .appStoreNotification(n)
        case .purchaseConsumable, .purchaseNonConsumable, .purchaseNonRenewing, .subscriptionStarted, .subscriptionRenewed,
            .billingRecovered, .renewalPreferenceChanged:
            // Their developer payload is in their transaction facts, mapped above.
            return event
        case .consumed, .billingFailed, .gracePeriodExpired, .subscriptionExpired, .autoRenewChanged, .priceIncrease,
            .renewalExtended, .refunded, .refundDeclined, .refundReversed, .revoked, .consumptionRequested,
            .consumptionInformationSent, .consumptionAnswerWithheld, .consumptionConsentRecorded, .grantGiven,
            .grantRevoked, .linked, .transferred:
            // Ids, dates and reasons only: the user ids among them are pseudonyms (`mappingUserIDs`).
            return event
        }
    }
}
