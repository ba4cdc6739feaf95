import SwiftASN1
import X509

/// The parts of a PKCS#7 / CMS `SignedData` that an App Store receipt needs, read with a BER parser.
///
/// BER, not DER: genuine App Store and Xcode receipts use indefinite lengths and segmented OCTET STRINGs, which
/// swift-certificates' DER-only CMS parser rejects. Every access is bounds-checked, since nothing here is trusted
/// until the signature has been verified.
///
/// ```
/// ContentInfo ::= SEQUENCE { contentType OID, content [0] EXPLICIT SignedData }
/// SignedData  ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo SEQUENCE { OID, [0] EXPLICIT OCTET STRING },
///                            certificates [0] IMPLICIT OPTIONAL, crls [1] IMPLICIT OPTIONAL, signerInfos SET }
/// SignerInfo  ::= SEQUENCE { version, sid IssuerAndSerialNumber, digestAlgorithm, signedAttrs [0] IMPLICIT OPTIONAL,
///                            signatureAlgorithm, signature OCTET STRING, unsignedAttrs [1] IMPLICIT OPTIONAL }
/// ```
struct PKCS7SignedData: Sendable {
    static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    static let messageDigestOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 4]
    static let sha1OID: ASN1ObjectIdentifier = [1, 3, 14, 3, 2, 26]
    static let sha256OID: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]

    private static let tag0 = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)

    /// The signed content: the receipt's attribute set.
    let content: [UInt8]
    /// Embedded certificates, in order of appearance.
    let certificates: [Certificate]
    /// Digest algorithm of the (first) signer.
    let digestAlgorithm: ASN1ObjectIdentifier
    /// The DER the signature covers when signed attributes are present (`[0]` re-tagged as SET, RFC 5652 §5.4).
    let signedAttributes: [UInt8]?
    /// The message-digest signed attribute, which must equal the digest of `content`.
    let messageDigest: [UInt8]?
    let signature: [UInt8]
    let signerIssuer: DistinguishedName
    let signerSerialNumber: [UInt8]

    /// Parses `bytes`; `malformed` for anything that is not a single SignedData with content and one signer,
    /// `untrusted_chain` for an embedded certificate that does not parse.
    init(berEncoded bytes: [UInt8]) throws(AppStoreVerificationError) {
        do {
            try self.init(parsing: bytes)
        } catch let error as AppStoreVerificationError {
            throw error
        } catch {
            throw .malformed("the receipt is not a well-formed PKCS#7 container (\(error))")
        }
    }

    private init(parsing bytes: [UInt8]) throws {
        let contentInfo = try Self.children(try BER.parse(bytes))
        guard contentInfo.count >= 2, (try? ASN1ObjectIdentifier(berEncoded: contentInfo[0])) == Self.signedDataOID else {
            throw AppStoreVerificationError.malformed("the data is not PKCS#7 SignedData (wrong content type)")
        }
        let signedData = try Self.children(try Self.explicit(contentInfo[1]))
        guard signedData.count >= 4 else { throw AppStoreVerificationError.malformed("PKCS#7 SignedData is truncated") }
        let encapsulated = try Self.children(signedData[2])
        guard encapsulated.count >= 2 else {
            throw AppStoreVerificationError.malformed("the PKCS#7 container has no receipt content (detached signature)")
        }
        content = try Self.octetString(try Self.explicit(encapsulated[1]))

        var certificates: [Certificate] = []
        for node in signedData.dropFirst(3).dropLast() where node.identifier == Self.tag0 {
            for certificateNode in try Self.children(node) {
                guard let certificate = try? Certificate(derEncoded: certificateNode) else {
                    throw AppStoreVerificationError(
                        .untrustedChain, "an embedded certificate of the receipt does not parse (damaged or forged)"
                    )
                }
                certificates.append(certificate)
            }
        }
        self.certificates = certificates

        guard let signerInfos = signedData.last, signerInfos.identifier == .set,
            let signerInfo = try Self.children(signerInfos).first
        else { throw AppStoreVerificationError.malformed("the PKCS#7 container has no signer") }
        let fields = try Self.children(signerInfo)
        guard fields.count >= 5 else { throw AppStoreVerificationError.malformed("the PKCS#7 signer info is truncated") }
        let signerIdentifier = try Self.children(fields[1])
        guard signerIdentifier.count >= 2, let issuer = try? DistinguishedName(derEncoded: signerIdentifier[0]),
            case .primitive(let serial) = signerIdentifier[1].content
        else { throw AppStoreVerificationError.malformed("the PKCS#7 signer is not identified by issuer and serial number") }
        signerIssuer = issuer
        signerSerialNumber = Self.normalizedSerial(Array(serial))

        let digestFields = try Self.children(fields[2])
        guard let digestNode = digestFields.first, let digest = try? ASN1ObjectIdentifier(berEncoded: digestNode) else {
            throw AppStoreVerificationError.malformed("the PKCS#7 signer has no digest algorithm")
        }
        digestAlgorithm = digest

        var index = 3
        if fields[index].identifier == Self.tag0 {
            var encoded = Array(fields[index].encodedBytes)
            encoded[0] = 0x31
            signedAttributes = encoded
            var digestValue: [UInt8]?
            for attribute in try Self.children(fields[index]) {
                let parts = try Self.children(attribute)
                guard parts.count >= 2 else { throw AppStoreVerificationError.malformed("a PKCS#7 signed attribute is truncated") }
                if (try? ASN1ObjectIdentifier(berEncoded: parts[0])) == Self.messageDigestOID,
                    let value = try Self.children(parts[1]).first
                {
                    digestValue = try Self.octetString(value)
                }
            }
            messageDigest = digestValue
            index += 1
        } else {
            signedAttributes = nil
            messageDigest = nil
        }
        index += 1  // signatureAlgorithm: genuine receipts say plain rsaEncryption; the digest algorithm decides.
        guard index < fields.count else { throw AppStoreVerificationError.malformed("the PKCS#7 signer has no signature") }
        signature = try Self.octetString(fields[index])
    }

    /// The embedded certificate the signer info names, if present.
    var signerCertificate: Certificate? {
        certificates.first { certificate in
            certificate.issuer == signerIssuer
                && Self.normalizedSerial(Array(certificate.serialNumber.bytes)) == signerSerialNumber
        }
    }

    private static func children(_ node: ASN1Node) throws -> [ASN1Node] {
        guard case .constructed(let nodes) = node.content else {
            throw AppStoreVerificationError.malformed("the PKCS#7 structure has a primitive where a constructed value belongs")
        }
        return Array(nodes)
    }

    private static func explicit(_ node: ASN1Node) throws -> ASN1Node {
        let inner = try children(node)
        guard inner.count == 1 else { throw AppStoreVerificationError.malformed("a PKCS#7 explicit tag holds \(inner.count) values") }
        return inner[0]
    }

    /// An OCTET STRING's value, joining the segments of a BER constructed encoding.
    static func octetString(_ node: ASN1Node) throws -> [UInt8] {
        switch node.content {
        case .primitive(let bytes):
            return Array(bytes)
        case .constructed(let segments):
            var value: [UInt8] = []
            for segment in segments { value += try octetString(segment) }
            return value
        }
    }

    private static func normalizedSerial(_ bytes: [UInt8]) -> [UInt8] { Array(bytes.drop(while: { $0 == 0 })) }
}
