import Crypto
import Foundation
import X509

/// Makes compact JWS the way the App Store does: ES256, `x5c` = [leaf, intermediate, root] in base64 DER.
public enum JWSSigner {
    public static func sign(
        _ payload: String, key: Certificate.PrivateKey, chain: [Certificate], alg: String = "ES256"
    ) throws -> String {
        let x5c = try chain.map { try Data(TestPKI.der($0)).base64EncodedString() }
        let header = "{\"alg\":\"\(alg)\",\"x5c\":[\(x5c.map { "\"\($0)\"" }.joined(separator: ","))]}"
        let signingInput = base64URL(Array(header.utf8)) + "." + base64URL(Array(payload.utf8))
        let algorithm: Certificate.SignatureAlgorithm = key.publicKey.description.contains("P384") ? .ecdsaWithSHA384 : .ecdsaWithSHA256
        let signature = try key.sign(bytes: Array(signingInput.utf8), signatureAlgorithm: algorithm)
        let raw = try rawECDSA(signature)
        return signingInput + "." + base64URL(raw)
    }

    public static func sign(_ payload: String, pki: TestPKI, alg: String = "ES256") throws -> String {
        try sign(payload, key: pki.leafKey, chain: pki.chain, alg: alg)
    }

    /// X509 hands back DER ECDSA signatures; JWS wants r || s.
    public static func rawECDSA(_ signature: Certificate.Signature) throws -> [UInt8] {
        let der = signature.rawRepresentation
        if let p256 = try? P256.Signing.ECDSASignature(derRepresentation: der) { return Array(p256.rawRepresentation) }
        return Array(try P384.Signing.ECDSASignature(derRepresentation: der).rawRepresentation)
    }

    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Flips one bit of the decoded segment `index` (0 header, 1 payload, 2 signature) and re-encodes it.
    public static func tamper(_ jws: String, segment index: Int, at position: Int = 5) -> String {
        var parts = jws.split(separator: ".").map(String.init)
        var text = parts[index].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        var bytes = [UInt8](Data(base64Encoded: text)!)
        bytes[position % bytes.count] ^= 0x01
        parts[index] = base64URL(bytes)
        return parts.joined(separator: ".")
    }
}
