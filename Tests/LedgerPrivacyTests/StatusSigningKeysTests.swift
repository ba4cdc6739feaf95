import Crypto
import Foundation
import Testing

@testable import LedgerPrivacy

/// The status signing keys: one per master key, the same on every instance that holds it, signing with the current
/// one and publishing every one a rotation still holds.
@Suite struct StatusSigningKeysTests {
    @Test func theKeyDerivesFromTheMasterKeyAndARotationPublishesBoth() throws {
        let old = SymmetricKey(size: .bits256)
        let new = SymmetricKey(size: .bits256)
        let before = StatusSigningKeys(keys: MasterKeySource(fixed: MasterKeyring(current: old)))
        let otherInstance = StatusSigningKeys(keys: MasterKeySource(fixed: MasterKeyring(current: old)))
        #expect(before.current.id == otherInstance.current.id, "two instances with one master key sign alike")
        #expect(before.current.privateKey.rawRepresentation == otherInstance.current.privateKey.rawRepresentation)

        let during = StatusSigningKeys(keys: MasterKeySource(fixed: MasterKeyring(current: new, previous: [old])))
        #expect(during.current.id != before.current.id)
        #expect(during.keySet().keys.map(\.keyID) == [during.current.id, before.current.id])
    }

    @Test func aSignatureCoversTheBodyTheUserAndTheInstant() throws {
        let keys = StatusSigningKeys(keys: MasterKeySource(fixed: MasterKeyring(current: SymmetricKey(size: .bits256))))
        let body = Array(#"{"app_user_id":"u1"}"#.utf8)
        let signature = try keys.sign(body: body, subject: "u1", issuedAt: 1_800_000_000)
        let parts = signature.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts[1].isEmpty, "a detached JWS")
        let header = try JSONDecoder().decode(StatusSignature.Header.self, from: try #require(Self.base64URL(parts[0])))
        #expect(header.subject == "u1" && header.issuedAt == 1_800_000_000 && header.keyID == keys.current.id && header.algorithm == "ES256")

        let jwk = try #require(keys.keySet().keys.first)
        let point = [0x04] + [UInt8](try #require(Self.base64URL(jwk.x))) + [UInt8](try #require(Self.base64URL(jwk.y)))
        let publicKey = try P256.Signing.PublicKey(x963Representation: point)
        let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Self.base64URL(parts[2])))
        func input(_ body: [UInt8]) -> Data { Data((String(parts[0]) + "." + StatusSignature.base64URL(body)).utf8) }
        #expect(publicKey.isValidSignature(ecdsa, for: input(body)))
        #expect(!publicKey.isValidSignature(ecdsa, for: input(Array(#"{"app_user_id":"u2"}"#.utf8))))
    }

    static func base64URL(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
    static func base64URL(_ text: String) -> Data? { base64URL(Substring(text)) }
}
