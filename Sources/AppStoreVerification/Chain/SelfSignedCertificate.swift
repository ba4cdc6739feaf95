import Foundation
import X509

/// Checks for the self-signed certificates StoreKit testing in Xcode signs with (JWS and receipts alike).
///
/// Apple's library skips all signature checks for Xcode / LocalTesting data. We still require the data to verify
/// against its embedded certificate and that certificate to be intact (its own signature) and valid at the signing
/// date, so a damaged or edited Xcode artifact is rejected instead of silently accepted.
enum SelfSignedCertificate {
    /// The certificate is self-issued and its own signature verifies (`untrusted_chain` otherwise).
    static func checkIntact(_ certificate: Certificate, what: String) throws(AppStoreVerificationError) {
        guard certificate.issuer == certificate.subject,
            certificate.publicKey.isValidSignature(certificate.signature, for: certificate)
        else {
            throw AppStoreVerificationError(
                .untrustedChain, "\(what) is not an intact self-signed certificate (its own signature does not verify)"
            )
        }
    }

    /// The certificate was valid at `time` (`certificate_expired` otherwise).
    static func checkValidity(_ certificate: Certificate, at time: Date, what: String) throws(AppStoreVerificationError) {
        guard certificate.notValidBefore <= time, time <= certificate.notValidAfter else {
            throw AppStoreVerificationError(
                .certificateExpired,
                "\(what) was not valid at the signing date \(time.formatted(.iso8601)) (valid \(certificate.notValidBefore.formatted(.iso8601)) "
                    + "to \(certificate.notValidAfter.formatted(.iso8601)))"
            )
        }
    }
}
