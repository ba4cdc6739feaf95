import ExactJSON
import Foundation
import UTCTime

/// Offline verification of App Store signed data and legacy receipts for one app.
///
/// Each `verify…` method checks, in order: the signature and certificates (see `JWSVerifier`, `ReceiptVerifier`),
/// the payload's shape, then that the data belongs to the configured app and environment. It never calls Apple.
/// Verified certificate chains are cached (bounded, thread-safe), so share one verifier across requests.
public struct AppStoreVerifier: Sendable {
    public let configuration: AppConfiguration
    public let roots: TrustRoots
    private let jws: JWSVerifier
    private let receipts: ReceiptVerifier

    public init(configuration: AppConfiguration, roots: TrustRoots) {
        self.configuration = configuration
        self.roots = roots
        let chain = ChainVerifier(roots: roots.certificates)
        self.jws = JWSVerifier(chainVerifier: chain)
        self.receipts = ReceiptVerifier(chainVerifier: chain)
    }

    /// A signed transaction (`signedTransactionInfo`, StoreKit 2 `Transaction.jwsRepresentation`).
    public func verifyTransaction(_ signed: String, now: Instant = Instant(Date())) async throws(AppStoreVerificationError) -> TransactionPayload {
        try await verifyTransaction(CompactJWS(signed), now: now)
    }

    func verifyTransaction(_ signed: CompactJWS, now: Instant) async throws(AppStoreVerificationError) -> TransactionPayload {
        let json = try await jws.verify(signed, kind: "transaction", allowLocallySigned: configuration.allowsLocallySignedData, now: now)
        let transaction = try TransactionPayload(json: json)
        try checkBundle(transaction.bundleId)
        try checkEnvironment(transaction.environment)
        return transaction
    }

    /// A signed renewal info. It carries no bundle id, so only the environment is checked (as Apple's library does).
    public func verifyRenewalInfo(_ signed: String, now: Instant = Instant(Date())) async throws(AppStoreVerificationError) -> RenewalInfoPayload {
        try await verifyRenewalInfo(CompactJWS(signed), now: now)
    }

    func verifyRenewalInfo(_ signed: CompactJWS, now: Instant) async throws(AppStoreVerificationError) -> RenewalInfoPayload {
        let json = try await jws.verify(signed, kind: "renewal_info", allowLocallySigned: configuration.allowsLocallySignedData, now: now)
        let renewalInfo = try RenewalInfoPayload(json: json)
        try checkEnvironment(renewalInfo.environment)
        return renewalInfo
    }

    /// A Server Notification V2 `signedPayload`. The nested signed transaction and renewal info, when present, are
    /// verified too (same app, same environment); a failure there rejects the whole notification.
    public func verifyNotification(_ signedPayload: String, now: Instant = Instant(Date())) async throws(AppStoreVerificationError)
        -> VerifiedNotification
    {
        try await verifyNotification(CompactJWS(signedPayload), now: now)
    }

    func verifyNotification(_ signedPayload: CompactJWS, now: Instant) async throws(AppStoreVerificationError) -> VerifiedNotification {
        let json = try await jws.verify(signedPayload, kind: "notification", allowLocallySigned: configuration.allowsLocallySignedData, now: now)
        let payload = try NotificationPayload(json: json)
        let identity = payload.appIdentity
        try checkBundle(identity.bundleId)
        try checkAppAppleId(identity.appAppleId)
        try checkEnvironment(identity.environment)
        var verified = VerifiedNotification(payload: payload)
        if let signed = payload.data?.signedTransactionInfo {
            do throws(AppStoreVerificationError) {
                verified.transaction = try await verifyTransaction(signed, now: now)
            } catch {
                throw error.located(at: "data.signedTransactionInfo")
            }
        }
        if let signed = payload.data?.signedRenewalInfo {
            do throws(AppStoreVerificationError) {
                verified.renewalInfo = try await verifyRenewalInfo(signed, now: now)
            } catch {
                throw error.located(at: "data.signedRenewalInfo")
            }
        }
        return verified
    }

    /// A signed app transaction (`AppTransaction.jwsRepresentation`); its chain is checked at `receiptCreationDate`.
    public func verifyAppTransaction(_ signed: String, now: Instant = Instant(Date())) async throws(AppStoreVerificationError)
        -> AppTransactionPayload
    {
        let json = try await jws.verify(
            signed, kind: "app_transaction", allowLocallySigned: configuration.allowsLocallySignedData, signingDateKey: "receiptCreationDate",
            now: now
        )
        let appTransaction = try AppTransactionPayload(json: json)
        try checkBundle(appTransaction.bundleId)
        try checkAppAppleId(appTransaction.appAppleId)
        try checkEnvironment(appTransaction.receiptType)
        return appTransaction
    }

    /// A legacy app receipt, base64 as the app sends it (whitespace ignored).
    public func verifyReceipt(base64 text: String, now: Instant = Instant(Date())) async throws(AppStoreVerificationError) -> AppReceipt {
        let der = try ReceiptInput.decode(text)
        return try await verifyReceipt(der: der, now: now)
    }

    /// A legacy app receipt as PKCS#7 bytes (DER or BER).
    public func verifyReceipt(der: [UInt8], now: Instant = Instant(Date())) async throws(AppStoreVerificationError) -> AppReceipt {
        let receipt = try await receipts.verify(der: der, allowLocallySigned: configuration.allowsLocallySignedData, now: now)
        try checkBundle(receipt.bundleId)
        guard receipt.environment == configuration.environment else {
            throw AppStoreVerificationError(
                .wrongEnvironment,
                "the receipt type is \(receipt.receiptType.map { "\"\($0)\"" } ?? "missing"), which is not the configured environment "
                    + "\(configuration.environment)"
            )
        }
        return receipt
    }

    /// Verifies any App Store JWS without interpreting its payload; used when the kind cannot be recognized, so the
    /// report still names the real problem (usually a damaged signature).
    func verifyUnclassifiedJWS(_ signed: String, now: Instant) async throws(AppStoreVerificationError) -> JSONValue {
        try await jws.verify(signed, allowLocallySigned: configuration.allowsLocallySignedData, now: now)
    }

    private func checkBundle(_ bundleId: String?) throws(AppStoreVerificationError) {
        guard bundleId == configuration.bundleId else {
            throw AppStoreVerificationError(
                .wrongBundleId,
                "the data is for bundle id \(bundleId.map { "\"\($0)\"" } ?? "(none)"), not \"\(configuration.bundleId)\"; check --bundle-id or "
                    + "where the data came from"
            )
        }
    }

    /// Production only: sandbox and Xcode data often carry no app Apple id (Apple's library does the same).
    private func checkAppAppleId(_ appAppleId: Int64?) throws(AppStoreVerificationError) {
        guard configuration.environment == .production, appAppleId != configuration.appAppleId else { return }
        throw AppStoreVerificationError(
            .wrongAppAppleId,
            "the data is for app Apple id \(appAppleId.map(String.init) ?? "(none)"), not "
                + "\(configuration.appAppleId.map(String.init) ?? "(not configured: pass --app-apple-id)")"
        )
    }

    private func checkEnvironment(_ environment: AppStoreEnvironment?) throws(AppStoreVerificationError) {
        guard environment == configuration.environment else {
            throw AppStoreVerificationError(
                .wrongEnvironment,
                "the data is from environment \(environment.map { "\"\($0)\"" } ?? "(none)"), not the configured \(configuration.environment)"
            )
        }
    }
}

/// A verified notification with its nested signed data decoded.
public struct VerifiedNotification: Sendable, Hashable {
    public var payload: NotificationPayload
    /// `data.signedTransactionInfo`, verified and decoded, if the notification has one.
    public var transaction: TransactionPayload?
    /// `data.signedRenewalInfo`, verified and decoded, if the notification has one.
    public var renewalInfo: RenewalInfoPayload?

    public init(payload: NotificationPayload, transaction: TransactionPayload? = nil, renewalInfo: RenewalInfoPayload? = nil) {
        self.payload = payload
        self.transaction = transaction
        self.renewalInfo = renewalInfo
    }
}
