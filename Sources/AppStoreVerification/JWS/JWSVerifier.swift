import Crypto
import ExactJSON
import Foundation
import SwiftASN1
import Tracing
import UTCTime
import X509

/// Verifies an App Store JWS and returns its payload.
///
/// Order of checks, chosen so a forged input gets the code that names the forgery: header and `alg`
/// (`malformed`, `unsupported_algorithm`); the `x5c` certificates parse and chain to a root with Apple's OIDs
/// (`untrusted_chain`, `missing_apple_oid`; before the signature, because x5c sits in the signed header and a changed
/// certificate would otherwise show up as a bad signature); the ES256 signature over the exact header.payload text
/// (`invalid_signature`, so a changed payload byte is reported as such even if it also breaks the JSON or the
/// dates); the payload decodes (`malformed`); finally validity at the payload's signing date
/// (`certificate_expired`).
struct JWSVerifier: Sendable {
    let chainVerifier: ChainVerifier
    let certificates = CertificateCache()

    /// - Parameters:
    ///   - allowLocallySigned: accept a single self-signed certificate (Xcode / LocalTesting data).
    ///   - signingDateKey: the payload member holding the signing date (`signedDate`; app transactions have none and
    ///     use `receiptCreationDate`, as Apple's library does). Without it the chain is checked at the current time.
    func verify(
        _ text: String, kind: String = "signed_data", allowLocallySigned: Bool, signingDateKey: String = "signedDate",
        now: Instant = Instant(Date())
    ) async throws(AppStoreVerificationError) -> JSONValue {
        try await verify(CompactJWS(text), kind: kind, allowLocallySigned: allowLocallySigned, signingDateKey: signingDateKey, now: now)
    }

    /// `verify` of a JWS already split and decoded (`AppStoreVerifierSet` reads the claimed environment from it first).
    /// Inside a trace, a span per signed payload (`kind`: notification, transaction, renewal_info, app_transaction)
    /// says whether its certificate chain was already known (`appstore.chain_cache`: hit, miss or self_signed).
    func verify(
        _ jws: CompactJWS, kind: String = "signed_data", allowLocallySigned: Bool, signingDateKey: String = "signedDate",
        now: Instant = Instant(Date())
    ) async throws(AppStoreVerificationError) -> JSONValue {
        guard InstrumentationContext.current != nil else {
            return try await verifyChecked(jws, allowLocallySigned: allowLocallySigned, signingDateKey: signingDateKey, now: now).payload
        }
        let span = startSpan("appstore.verify \(kind)")
        defer { span.end() }
        do {
            let verified = try await verifyChecked(jws, allowLocallySigned: allowLocallySigned, signingDateKey: signingDateKey, now: now)
            span.attributes["appstore.chain_cache"] = verified.chainCache
            return verified.payload
        } catch {
            span.attributes["appstore.verification.failure"] = error.code.rawValue
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    /// The payload, and whether the chain was known (`hit`), verified now (`miss`) or self-signed (`self_signed`).
    private func verifyChecked(
        _ jws: CompactJWS, allowLocallySigned: Bool, signingDateKey: String, now: Instant
    ) async throws(AppStoreVerificationError) -> (payload: JSONValue, chainCache: String) {
        guard jws.algorithm == "ES256" else {
            throw AppStoreVerificationError(
                .unsupportedAlgorithm,
                "the JWS header says alg \(jws.algorithm.map { "\"\($0)\"" } ?? "(none)"); App Store data is always ES256"
            )
        }
        guard let x5c = jws.certificateChain, !x5c.isEmpty else {
            throw .malformed("the JWS header has no x5c certificate chain, so its signer cannot be identified")
        }
        let certificates = try parseCertificates(x5c.prefix(2))
        let leaf = certificates[0]
        let selfSigned = x5c.count == 1 && allowLocallySigned
        var chainCache = "self_signed"
        switch x5c.count {
        case 3:
            chainCache = try await chainVerifier.verifyTrust(leaf: leaf, intermediate: certificates[1]) ? "hit" : "miss"
        case 1 where allowLocallySigned:
            try SelfSignedCertificate.checkIntact(leaf, what: "the x5c certificate")
        case 1:
            throw AppStoreVerificationError(
                .untrustedChain,
                "signed by a single self-signed certificate (StoreKit testing in Xcode); such data is accepted only when the app is configured "
                    + "for the Xcode or LocalTesting environment"
            )
        default:
            throw AppStoreVerificationError(
                .untrustedChain, "x5c holds \(x5c.count) certificates; App Store data carries exactly 3 (leaf, intermediate, root)"
            )
        }
        try Self.checkSignature(of: jws, with: leaf)
        let payload = try jws.payloadJSON()

        let validationTime = Self.signingDate(in: payload, key: signingDateKey) ?? now.date
        if selfSigned {
            try SelfSignedCertificate.checkValidity(leaf, at: validationTime, what: "the x5c certificate")
        } else {
            try await chainVerifier.verify(leaf: leaf, intermediate: certificates[1], at: validationTime)
        }
        return (payload, chainCache)
    }

    private func parseCertificates(_ entries: ArraySlice<String>) throws(AppStoreVerificationError) -> [Certificate] {
        var parsed: [Certificate] = []
        for (position, entry) in entries.enumerated() {
            guard let certificate = certificates.certificate(entry) else {
                throw AppStoreVerificationError(
                    .untrustedChain, "x5c[\(position)] is not a base64 DER X.509 certificate (damaged or forged)"
                )
            }
            parsed.append(certificate)
        }
        return parsed
    }

    private static func checkSignature(of jws: CompactJWS, with leaf: Certificate) throws(AppStoreVerificationError) {
        guard let key = P256.Signing.PublicKey(leaf.publicKey) else {
            throw AppStoreVerificationError(
                .invalidSignature, "the signing certificate's key is \(leaf.publicKey), but ES256 signatures need a P-256 key"
            )
        }
        guard let raw = jws.signature, raw.count == 64,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw),
            key.isValidSignature(signature, for: jws.signingInput)
        else {
            throw AppStoreVerificationError(
                .invalidSignature,
                "the ES256 signature does not match the header and payload; the data was altered after signing (or truncated in transit)"
            )
        }
    }

    /// The payload's signing date as a `Date`, if present and numeric.
    static func signingDate(in payload: JSONValue, key: String) -> Date? {
        guard case .number(let literal)? = payload[key], let timestamp = AppStoreTimestamp(literal: literal) else {
            return nil
        }
        return timestamp.date
    }
}
