import Foundation
import UTCTime

/// Verification for an app that accepts data from several environments (a live app gets Production and Sandbox
/// data — App Review buys in the sandbox — and, when allowed, Xcode / local-testing data).
///
/// The environment the data claims (read before verification) picks the verifier; that verifier then checks the
/// signature, the bundle and that the claimed environment is indeed its own. Data claiming an environment the app
/// does not accept is refused with `wrong_environment` before any signature work.
public struct AppStoreVerifierSet: Sendable {
    public let verifiers: [AppStoreEnvironment: AppStoreVerifier]
    /// Accepted environments, in the order they are reported.
    public let environments: [AppStoreEnvironment]

    public init(bundleId: String, appAppleId: Int64?, environments: [AppStoreEnvironment], roots: TrustRoots) {
        self.environments = environments
        self.verifiers = Dictionary(
            uniqueKeysWithValues: environments.map {
                ($0, AppStoreVerifier(configuration: AppConfiguration(bundleId: bundleId, appAppleId: appAppleId, environment: $0), roots: roots))
            })
    }

    public func verifyNotification(_ signedPayload: String, now: Instant = Instant(Date())) async throws(AppStoreVerificationError)
        -> VerifiedNotification
    {
        // Split and decoded once: the claimed environment picks the verifier, which verifies the same decoded JWS.
        let jws = try CompactJWS(signedPayload)
        let claimed = try? NotificationPayload(json: jws.payloadJSON()).appIdentity.environment
        return try await verifier(for: claimed).verifyNotification(jws, now: now)
    }

    public func verifyTransaction(_ signed: String, now: Instant = Instant(Date())) async throws(AppStoreVerificationError) -> TransactionPayload {
        let jws = try CompactJWS(signed)
        let claimed = try? TransactionPayload(json: jws.payloadJSON()).environment
        return try await verifier(for: claimed).verifyTransaction(jws, now: now)
    }

    public func verifyRenewalInfo(_ signed: String, now: Instant = Instant(Date())) async throws(AppStoreVerificationError) -> RenewalInfoPayload {
        let jws = try CompactJWS(signed)
        let claimed = try? RenewalInfoPayload(json: jws.payloadJSON()).environment
        return try await verifier(for: claimed).verifyRenewalInfo(jws, now: now)
    }

    public func verifyReceipt(der: [UInt8], now: Instant = Instant(Date())) async throws(AppStoreVerificationError) -> AppReceipt {
        let claimed = try? UnverifiedInspection.receipt(der: der).environment
        return try await verifier(for: claimed).verifyReceipt(der: der, now: now)
    }

    public func verifyReceipt(base64 text: String, now: Instant = Instant(Date())) async throws(AppStoreVerificationError) -> AppReceipt {
        try await verifyReceipt(der: ReceiptInput.decode(text), now: now)
    }

    /// The verifier for the claimed environment. Unreadable data goes to the first verifier, which reports what
    /// is wrong with it (malformed, bad signature…).
    private func verifier(for claimed: AppStoreEnvironment??) throws(AppStoreVerificationError) -> AppStoreVerifier {
        guard let first = environments.first, let fallback = verifiers[first] else {
            throw AppStoreVerificationError(.wrongEnvironment, "this app accepts no App Store environment")
        }
        guard case .some(.some(let environment)) = claimed else { return fallback }
        if let verifier = verifiers[environment] { return verifier }
        let accepted = environments.map(\.rawValue).joined(separator: ", ")
        let hint = environment.isLocal ? " (create the app with allow_xcode to accept Xcode and local-testing data)" : ""
        throw AppStoreVerificationError(
            .wrongEnvironment, "the data is from environment \(environment); this app accepts \(accepted)\(hint)")
    }
}
