import AppStoreVerification
import LedgerDomain
import UTCTime

extension TransactionFacts {
    /// A verified StoreKit 2 transaction as the domain's facts, for the notification and SDK-upload paths alike.
    ///
    /// `signedDate` is the purchase date (see `About.swift`): the copy of one transaction inside a notification and
    /// the copy the SDK fetched are signed at different times, and both must produce the same payload.
    /// `developerPayload` is the `appAccountToken`, which Apple returns with every copy.
    public init(_ t: TransactionPayload, appUserID: String?) throws(IngestError) {
        guard let transactionID = t.transactionId else { throw .missingField("transaction.transactionId") }
        guard let productID = t.productId else { throw .missingField("transaction.productId") }
        guard let purchase = t.purchaseDate else { throw .missingField("transaction.purchaseDate") }
        guard let environment = t.environment else { throw .missingField("transaction.environment") }
        let purchaseDate = Instant(appStore: purchase)
        self.init(
            appUserID: appUserID, productID: productID, transactionID: transactionID,
            // Apple always sends it; a first purchase is its own original.
            originalTransactionID: t.originalTransactionId ?? transactionID,
            subscriptionGroupID: t.subscriptionGroupIdentifier,
            environment: StoreEnvironment(rawValue: environment.rawValue),
            purchaseDate: purchaseDate,
            originalPurchaseDate: t.originalPurchaseDate.map(Instant.init(appStore:)),
            expiresDate: t.expiresDate.map(Instant.init(appStore:)),
            signedDate: purchaseDate,
            price: Self.money(t.price, t.currency),
            offer: Self.offer(t.offerType, identifier: t.offerIdentifier, discount: t.offerDiscountType, period: t.offerPeriod),
            familyShared: t.inAppOwnershipType == .familyShared,
            developerPayload: t.appAccountToken,
            quantity: Int(t.quantity ?? 1),
            storefront: t.storefront,
            webOrderLineItemID: t.webOrderLineItemId,
            appTransactionID: t.appTransactionId,
            billingPlanType: t.billingPlanType,
            commitment: t.commitmentInfo.map { Self.commitment($0, currency: t.currency) })
    }

    static func commitment(_ info: CommitmentInfo, currency: String?) -> Commitment {
        Commitment(
            billingPeriodNumber: info.billingPeriodNumber.map(Int.init),
            totalBillingPeriods: info.totalBillingPeriods.map(Int.init),
            expiresAt: info.commitmentExpiresDate.map(Instant.init(appStore:)),
            priceAfter: money(info.commitmentPrice, currency))
    }

    /// A price only with its currency: milliunits without a currency would be meaningless in revenue sums.
    static func money(_ milliunits: Int64?, _ currency: String?) -> Money? {
        guard let milliunits, let currency else { return nil }
        return Money(milliunits: milliunits, currency: currency)
    }

    /// Apple's `offerType` 1…4 as the domain's offer; an offer type Apple adds later is left out rather than
    /// recorded as a wrong kind (the raw notification keeps it).
    static func offer(
        _ type: AppStoreVerification.OfferType?, identifier: String?, discount: OfferDiscountType?, period: String?
    ) -> Offer? {
        let kind: LedgerDomain.OfferType
        switch type {
        case .introductoryOffer?: kind = .introductory
        case .promotionalOffer?: kind = .promotional
        case .offerCode?: kind = .offerCode
        case .winBackOffer?: kind = .winBack
        default: return nil
        }
        return Offer(type: kind, identifier: identifier, paymentMode: discount?.rawValue, period: period)
    }
}
