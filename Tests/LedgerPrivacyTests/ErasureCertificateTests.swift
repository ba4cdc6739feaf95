import Crypto
import Foundation
import LedgerPrivacy
import Testing
import UTCTime

/// The erasure certificate: signed with the digest key over its canonical JSON, it survives a round trip through
/// JSON and fails on any change, on another key, and against a trusted key that is not its own.
@Suite struct ErasureCertificateTests {
    static let certificate = ErasureCertificate(
        appID: "app_1", pseudonym: "usr_0a1b2c", destroyed: ["developer_payload", "app_user_id"],
        erasedAt: Instant(secondsSinceEpoch: 1_795_000_000), erasedBy: "op_sam", chainEventCount: 42, chainHeadsHash: Array(repeating: 7, count: 32))

    @Test func aSignedCertificateVerifiesAfterARoundTripAndFailsWhenAltered() throws {
        let key = Curve25519.Signing.PrivateKey()
        let signed = try SignedErasureCertificate(Self.certificate, key: key)
        #expect(signed.isValid() && signed.isValid(trusted: key.publicKey))
        #expect(!signed.isValid(trusted: Curve25519.Signing.PrivateKey().publicKey), "a key other than the trusted one")
        let text = String(decoding: try JSONEncoder().encode(signed), as: UTF8.self)
        #expect(
            text.contains("\"erased_at\":\"2026-11-18T11:06:40") && text.contains("\"destroyed\":[\"app_user_id\",\"developer_payload\"]"), "\(text)")
        #expect(!text.contains("sam@") && !text.contains("reason"), "no personal data, no free text")
        let read = try JSONDecoder().decode(SignedErasureCertificate.self, from: Data(text.utf8))
        #expect(read == signed && read.isValid(trusted: key.publicKey))
        var altered = read
        altered.certificate.chainEventCount = 43
        #expect(!altered.isValid())
        var resigned = read
        resigned.publicKey = try SignedErasureCertificate(Self.certificate, key: Curve25519.Signing.PrivateKey()).publicKey
        #expect(!resigned.isValid(), "a signature under another key")
    }
}
