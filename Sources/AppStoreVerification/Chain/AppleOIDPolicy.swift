import SwiftASN1
import X509

/// Requires Apple's marker extensions: the receipt-signing OID on the leaf and the WWDR intermediate OID on the
/// intermediate, and a chain of exactly leaf, intermediate, root.
///
/// Chaining to an Apple root is not enough on its own: Apple Root CA - G3 also anchors certificates for other uses
/// (Apple Pay, push, ...). The OIDs limit trust to App Store signing certificates, as Apple's library does.
struct AppleOIDPolicy: VerifierPolicy {
    static let receiptSigningOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    static let wwdrIntermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]

    /// These OIDs are not critical in Apple's certificates; we understand no critical extension beyond RFC 5280's.
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "the chain has \(chain.count) certificates, App Store chains have 3")
        }
        guard chain[0].extensions.contains(where: { $0.oid == Self.receiptSigningOID }) else {
            return .failsToMeetPolicy(reason: "the leaf certificate lacks the App Store receipt-signing OID 1.2.840.113635.100.6.11.1")
        }
        guard chain[1].extensions.contains(where: { $0.oid == Self.wwdrIntermediateOID }) else {
            return .failsToMeetPolicy(reason: "the intermediate certificate lacks the Apple WWDR OID 1.2.840.113635.100.6.2.1")
        }
        return .meetsPolicy
    }
}
