import AppStoreVerification
import ExactJSON
import LedgerDomain
import UTCTime

/// A verified App Store Server Notification V2 → ledger events.
///
/// The verbatim record (`appstore.notification`) always comes first, for every type including ones Apple adds
/// later; the typed facts are the domain's `AppStoreNotificationMapping`. When the app's `appAccountToken`
/// policy names a user, the transaction facts carry that user and an `identity.linked` (source
/// `appAccountToken`) follows, so a subscription bought before the user ever uploaded anything gets its owner.
public struct NotificationIngest: Sendable {
    public var appAccountTokens: AppAccountTokenPolicy

    public init(appAccountTokens: AppAccountTokenPolicy = .ignore) {
        self.appAccountTokens = appAccountTokens
    }

    /// The events to record for `notification`, in order.
    public func events(for notification: VerifiedNotification) throws(IngestError) -> [LedgerEvent] {
        let decoded = try decode(notification)
        var events = AppStoreNotificationMapping.events(for: decoded)
        if let facts = decoded.transaction, let user = facts.appUserID {
            events.append(
                IdentityLinks.link(
                    user, originalTransactionID: facts.originalTransactionID, since: IdentityLinks.since(facts),
                    source: .appAccountToken))
        }
        return events
    }

    /// The notification reduced to plain domain values.
    ///
    /// A nested transaction lacking a field the ledger needs (its id, product, purchase date) is left out rather
    /// than refusing the notification: Apple would retry a refused notification forever, and the verbatim record
    /// still keeps every byte. Only a notification that cannot be keyed (no UUID) or ordered (no signed date) is
    /// refused.
    public func decode(_ notification: VerifiedNotification) throws(IngestError) -> DecodedNotification {
        let payload = notification.payload
        guard let uuid = payload.notificationUUID else { throw .missingField("notificationUUID") }
        guard let signed = payload.signedDate else { throw .missingField("signedDate") }
        guard let type = payload.notificationType else { throw .missingField("notificationType") }
        guard let environment = Self.environment(notification) else { throw .missingField("data.environment") }
        let transaction = notification.transaction
        let user = appAccountTokens.appUserID(forToken: transaction?.appAccountToken)
        let facts = transaction.flatMap { t in try? TransactionFacts(t, appUserID: user) }
        return DecodedNotification(
            notificationType: type.rawValue, subtype: payload.subtype?.rawValue, notificationUUID: uuid,
            signedDate: Instant(appStore: signed), environment: StoreEnvironment(rawValue: environment.rawValue),
            rawJSON: JSONWriter.string(payload.raw), transaction: facts,
            productType: LedgerDomain.ProductType(appStore: transaction?.type),
            revocationDate: transaction?.revocationDate.map(Instant.init(appStore:)),
            revocationReason: transaction?.revocationReason.map { String($0.rawValue) },
            renewal: notification.renewalInfo.map { RenewalInfo($0) },
            renewalExtensionSummary: payload.summary.map(Self.summary))
    }

    static func summary(_ s: NotificationSummary) -> RenewalExtensionSummary {
        RenewalExtensionSummary(
            requestIdentifier: s.requestIdentifier, productID: s.productId,
            storefrontCountryCodes: s.storefrontCountryCodes ?? [], succeededCount: s.succeededCount ?? 0,
            failedCount: s.failedCount ?? 0)
    }

    /// The environment the notification is from, wherever its type carries it. External purchase tokens carry
    /// none: like Apple (and the verifier), a `SANDBOX` id prefix means Sandbox.
    static func environment(_ n: VerifiedNotification) -> AppStoreEnvironment? {
        let p = n.payload
        if let e = p.data?.environment ?? p.summary?.environment ?? p.appData?.environment { return e }
        if let e = n.transaction?.environment ?? n.renewalInfo?.environment { return e }
        if let token = p.externalPurchaseToken {
            return token.externalPurchaseId?.hasPrefix("SANDBOX") == true ? .sandbox : .production
        }
        return nil
    }
}
