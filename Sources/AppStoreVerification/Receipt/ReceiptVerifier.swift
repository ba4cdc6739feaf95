import Crypto
import Foundation
import UTCTime
import X509

/// Verifies a legacy receipt's PKCS#7 signature and chain, then returns its decoded fields.
///
/// Apple's `ReceiptUtility` checks nothing and its `AppReceiptVerifier` skips Xcode receipts entirely; we verify
/// every receipt: App Store receipts must chain (leaf, WWDR intermediate, root, all embedded) to a configured root
/// with Apple's OIDs at the receipt's creation date; Xcode receipts, accepted only for Xcode / LocalTesting apps,
/// must verify against their intact self-signed "StoreKit" certificate. As for JWS, the signature is checked before
/// the chain and the payload's syntax, so an altered content byte is reported as `invalid_signature`.
struct ReceiptVerifier: Sendable {
    let chainVerifier: ChainVerifier

    func verify(der: [UInt8], allowLocallySigned: Bool, now: Instant = Instant(Date())) async throws(AppStoreVerificationError) -> AppReceipt {
        let container = try PKCS7SignedData(berEncoded: der)
        let parsed = Result { () throws(AppStoreVerificationError) in try ReceiptParser.parse(payload: container.content) }
        guard let signer = container.signerCertificate else {
            throw AppStoreVerificationError(.untrustedChain, "the receipt does not embed the certificate that signed it")
        }
        let chain = Self.orderedChain(from: signer, in: container.certificates)
        let selfSigned = signer.issuer == signer.subject
        if selfSigned && allowLocallySigned {
            try SelfSignedCertificate.checkIntact(signer, what: "the receipt's signing certificate")
        } else if selfSigned {
            throw AppStoreVerificationError(
                .untrustedChain,
                "the receipt is signed by a self-signed certificate (\(signer.subject)), as StoreKit testing in Xcode does; such receipts are "
                    + "accepted only when the app is configured for the Xcode or LocalTesting environment"
            )
        } else if chain.count == 3 {
            try await chainVerifier.verifyTrust(leaf: chain[0], intermediate: chain[1])
        } else {
            throw AppStoreVerificationError(
                .untrustedChain,
                "the receipt embeds a chain of \(chain.count) certificates from its signer; App Store receipts embed 3 (signer, WWDR intermediate,"
                    + " Apple root)"
            )
        }
        try Self.checkSignature(of: container, with: signer)
        let receipt = try parsed.get()
        let validationTime = receipt.receiptCreationDateMs.map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? now.date
        if selfSigned {
            try SelfSignedCertificate.checkValidity(signer, at: validationTime, what: "the receipt's signing certificate")
        } else {
            try await chainVerifier.verify(leaf: chain[0], intermediate: chain[1], at: validationTime)
        }
        return receipt
    }

    /// Signer first, then each certificate's issuer among the embedded ones, as Apple's library orders them.
    static func orderedChain(from signer: Certificate, in certificates: [Certificate]) -> [Certificate] {
        var ordered = [signer]
        while ordered.count < certificates.count, let tip = ordered.last, tip.issuer != tip.subject,
            let issuer = certificates.first(where: { $0.subject == tip.issuer && !ordered.contains($0) })
        {
            ordered.append(issuer)
        }
        return ordered
    }

    private static func checkSignature(of container: PKCS7SignedData, with signer: Certificate) throws(AppStoreVerificationError) {
        let algorithm: Certificate.SignatureAlgorithm
        let contentDigest: [UInt8]
        switch container.digestAlgorithm {
        case PKCS7SignedData.sha1OID:
            algorithm = .sha1WithRSAEncryption
            contentDigest = Array(Insecure.SHA1.hash(data: container.content))
        case PKCS7SignedData.sha256OID:
            algorithm = .sha256WithRSAEncryption
            contentDigest = Array(SHA256.hash(data: container.content))
        default:
            throw AppStoreVerificationError(
                .invalidSignature, "the receipt uses digest algorithm \(container.digestAlgorithm); App Store receipts use SHA-1 or SHA-256 with RSA"
            )
        }
        var signedBytes = container.content
        if let signedAttributes = container.signedAttributes {
            guard container.messageDigest == contentDigest else {
                throw AppStoreVerificationError(
                    .invalidSignature, "the receipt content does not match the digest its signature covers; the receipt was altered"
                )
            }
            signedBytes = signedAttributes
        }
        guard signer.publicKey.isValidSignature(container.signature, for: signedBytes, signatureAlgorithm: algorithm) else {
            throw AppStoreVerificationError(
                .invalidSignature, "the receipt's RSA signature does not verify against its signing certificate; the receipt was altered"
            )
        }
    }
}
