import ExactJSON

/// What a piece of App Store data is, as named on the command line (`--kind`).
public enum DecodeKind: String, Sendable, Hashable, CaseIterable, Codable {
    case auto
    case transaction
    case renewalInfo = "renewal-info"
    case notification
    case appTransaction = "app-transaction"
    case receipt
    /// Reported when `auto` cannot tell (e.g. a damaged payload); never accepted as input.
    case unknown
}

/// Recognizes the kind of an input for `--kind auto`, from its shape and, for a JWS, from its payload's members.
///
/// Only a hint for reporting and dispatch: the data is still fully verified as the detected kind.
enum KindDetector {
    static func detect(_ input: NormalizedInput) -> DecodeKind {
        switch input {
        case .notificationBody: return .notification
        case .receipt: return .receipt
        case .jws(let text): return detectJWS(text)
        }
    }

    static func detectJWS(_ text: String) -> DecodeKind {
        guard let jws = try? CompactJWS(text), let payload = try? jws.payloadJSON() else { return .unknown }
        let keys = Set(payload.keys)
        if !keys.isDisjoint(with: ["notificationType", "notificationUUID", "data", "summary", "externalPurchaseToken", "appData"]) {
            return .notification
        }
        if !keys.isDisjoint(with: ["receiptType", "applicationVersion", "originalApplicationVersion", "receiptCreationDate"]) {
            return .appTransaction
        }
        if !keys.isDisjoint(with: [
            "autoRenewStatus", "autoRenewProductId", "renewalDate", "expirationIntent", "isInBillingRetryPeriod",
            "priceIncreaseStatus", "gracePeriodExpiresDate", "recentSubscriptionStartDate", "renewalPrice",
            "eligibleWinBackOfferIds"
        ]) {
            return .renewalInfo
        }
        if !keys.isDisjoint(with: ["transactionId", "purchaseDate", "type", "inAppOwnershipType", "bundleId"]) {
            return .transaction
        }
        // Renewal info is the only App Store JWS without a bundle id.
        return .renewalInfo
    }
}
