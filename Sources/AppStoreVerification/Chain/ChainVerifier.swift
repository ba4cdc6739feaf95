import Foundation
// The chain is checked at the payload's signing date, as Apple's verifier does, not at the current time: the fixed-time policy.
@_spi(FixedExpiryValidationTime) import X509

/// Builds and checks the chain leaf → intermediate → configured root with swift-certificates, the way Apple's
/// library does (RFC 5280 at the validation time + `AppleOIDPolicy`), and explains failures with a precise code.
struct ChainVerifier: Sendable {
    let roots: [Certificate]
    let cache: ChainCache

    init(roots: [Certificate], cache: ChainCache = ChainCache()) {
        self.roots = roots
        self.cache = cache
    }

    /// Succeeds when the chain is trusted at some time when all its certificates are valid (the latest `notBefore`),
    /// else throws `untrusted_chain` or `missing_apple_oid`. Run before the signature check so that a changed
    /// certificate is reported as such (the JWS header, x5c included, is covered by the signature too); the result is
    /// cached, so the later check at the signing date is usually free.
    /// True when the answer came from the cache.
    @discardableResult
    func verifyTrust(leaf: Certificate, intermediate: Certificate) async throws(AppStoreVerificationError) -> Bool {
        try await verify(leaf: leaf, intermediate: intermediate, at: probeTime(leaf: leaf, intermediate: intermediate))
    }

    /// A time at which the leaf, the intermediate and the roots that could have issued it are all valid, if any is.
    private func probeTime(leaf: Certificate, intermediate: Certificate) -> Date {
        let issuers = roots.filter { $0.subject == intermediate.issuer }
        return ([leaf, intermediate] + issuers).map(\.notValidBefore).max() ?? Date()
    }

    /// Succeeds when the chain is valid at `validationTime`; otherwise throws `untrusted_chain`, `missing_apple_oid`
    /// or `certificate_expired`, in that order of precedence (a forged certificate is untrusted even if also expired).
    /// True when the answer came from the cache.
    @discardableResult
    func verify(leaf: Certificate, intermediate: Certificate, at validationTime: Date) async throws(AppStoreVerificationError) -> Bool {
        let key = ChainCache.Key(leaf: leaf, intermediate: intermediate)
        if cache.contains(key, validAt: validationTime) { return true }
        let result = await validate(leaf: leaf, intermediate: intermediate, at: validationTime, requireAppleOIDs: true)
        if case .validCertificate(let chain) = result {
            let validFrom = chain.map(\.notValidBefore).max() ?? validationTime
            let validUntil = chain.map(\.notValidAfter).min() ?? validationTime
            cache.insert(key, validFrom: validFrom, validUntil: validUntil)
            return false
        }
        throw await diagnose(leaf: leaf, intermediate: intermediate, at: validationTime)
    }

    private func validate(
        leaf: Certificate, intermediate: Certificate, at time: Date, requireAppleOIDs: Bool
    ) async -> CertificateValidationResult {
        let store = CertificateStore(roots)
        let intermediates = CertificateStore([intermediate])
        if requireAppleOIDs {
            var verifier = Verifier(rootCertificates: store) {
                RFC5280Policy(fixedExpiryValidationTime: time)
                AppleOIDPolicy()
            }
            return await verifier.validate(leaf: leaf, intermediates: intermediates)
        }
        var verifier = Verifier(rootCertificates: store) { RFC5280Policy(fixedExpiryValidationTime: time) }
        return await verifier.validate(leaf: leaf, intermediates: intermediates)
    }

    /// Finds out why the chain failed by re-running it at a time when every certificate is valid: if it still fails
    /// without the OID policy it is untrusted; if only with it, OIDs are missing; otherwise time was the problem.
    private func diagnose(leaf: Certificate, intermediate: Certificate, at time: Date) async -> AppStoreVerificationError {
        let issuers = roots.filter { $0.subject == intermediate.issuer }
        let chain = [leaf, intermediate] + issuers
        let probeTime = probeTime(leaf: leaf, intermediate: intermediate)
        let untrusted = AppStoreVerificationError(
            .untrustedChain,
            "the signing certificates do not chain to a configured root (leaf issued by \(leaf.issuer), intermediate issued by "
                + "\(intermediate.issuer)); configure the right root with --root / LEDGER_APPLE_ROOTS, or the data is forged"
        )
        guard !issuers.isEmpty else { return untrusted }
        guard case .validCertificate = await validate(leaf: leaf, intermediate: intermediate, at: probeTime, requireAppleOIDs: false)
        else { return untrusted }
        if case .couldNotValidate(let failures) = await validate(
            leaf: leaf, intermediate: intermediate, at: probeTime, requireAppleOIDs: true
        ) {
            let reason = failures.first.map { "\($0.policyFailureReason)" } ?? "Apple OIDs missing"
            if reason.contains("App Store chains have 3") {
                return AppStoreVerificationError(.untrustedChain, reason)
            }
            return AppStoreVerificationError(.missingAppleOID, "\(reason); this certificate is not an App Store signing certificate")
        }
        let expired = chain.first { time < $0.notValidBefore || time > $0.notValidAfter }
        let subject = expired.map { "\($0.subject)" } ?? "a certificate"
        let window = expired.map { " (valid \(iso($0.notValidBefore)) to \(iso($0.notValidAfter)))" } ?? ""
        return AppStoreVerificationError(
            .certificateExpired,
            "\(subject) was not valid at the signing date \(iso(time))\(window); the data was signed outside the certificate's lifetime"
        )
    }

    private func iso(_ date: Date) -> String { date.formatted(.iso8601) }
}
