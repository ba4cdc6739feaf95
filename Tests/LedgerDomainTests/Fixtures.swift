import LedgerDomain
import UTCTime

/// 2026-01-01T00:00:00Z.
let epoch2026 = Instant(epochMilliseconds: 1_767_225_600_000)

/// Day `n` (fractions allowed through `hours`) after 2026-01-01.
func day(_ n: Int64, hours: Int64 = 0) -> Instant {
    epoch2026.adding(days: n).adding(microseconds: hours * 3_600_000_000)
}

func tx(
    _ id: String, otx: String? = nil, product: String = "monthly", user: String? = nil, group: String? = "g1",
    env: StoreEnvironment = .production, purchased: Instant, expires: Instant? = nil, signed: Instant? = nil,
    offer: Offer? = nil, family: Bool = false, payload: String? = nil, price: Int64 = 9_990
) -> TransactionFacts {
    TransactionFacts(
        appUserID: user, productID: product, transactionID: id, originalTransactionID: otx ?? id,
        subscriptionGroupID: group, environment: env, purchaseDate: purchased, expiresDate: expires,
        signedDate: signed ?? purchased, price: Money(milliunits: price, currency: "USD"), offer: offer,
        familyShared: family, developerPayload: payload)
}

func ref(_ otx: String, product: String = "monthly", signed: Instant, user: String? = nil) -> SubscriptionRef {
    SubscriptionRef(appUserID: user, productID: product, originalTransactionID: otx, subscriptionGroupID: "g1", signedDate: signed)
}

/// An in-memory event log: appends with increasing positions, recorded at a given instant.
struct Log {
    var events: [DomainEvent] = []
    var appID = "app1"

    /// Appends `event`; `recorded` defaults to one hour after the previous event (or day 0).
    mutating func append(_ event: LedgerEvent, recorded: Instant? = nil) {
        let at = recorded ?? (events.last?.recordedAt.adding(microseconds: 3_600_000_000) ?? day(0))
        events.append(
            DomainEvent(
                appID: appID, position: Int64(events.count + 1), occurredAt: at, recordedAt: at, event: event))
    }

    mutating func append(_ list: [LedgerEvent]) {
        for e in list { append(e) }
    }

    func status(_ otx: String, asOf: Instant? = nil) -> SubscriptionStatus {
        fold(SubscriptionStatusReducer.self, key: otx, events: events, asOf: asOf)
    }

    func purchase(_ otx: String, asOf: Instant? = nil) -> PurchaseRecord {
        fold(PurchaseRecordReducer.self, key: otx, events: events, asOf: asOf)
    }

    var statuses: [SubscriptionStatus] {
        foldAll(SubscriptionStatusReducer.self, events: events, asOf: nil).values.sorted { $0.originalTransactionID < $1.originalTransactionID }
    }

    var purchases: [PurchaseRecord] {
        foldAll(PurchaseRecordReducer.self, events: events, asOf: nil).values.sorted { $0.originalTransactionID < $1.originalTransactionID }
    }

    func user(_ id: String) -> UserView {
        UserView(appUserID: id, subscriptions: statuses.map(\.summary), purchases: purchases.map(\.summary))
    }
}
