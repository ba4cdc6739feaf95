import Crypto
import Foundation
import SwiftASN1
import X509

/// Builds PKCS#7 receipts by hand, in DER or in BER with indefinite lengths and a segmented content OCTET STRING
/// (the shape genuine App Store and Xcode receipts have), with or without signed attributes.
public enum ReceiptBuilder {
    public struct Options {
        public var ber = false
        public var signedAttributes = false
        public var digestSHA1 = false
        /// Embedded certificates (signer first); defaults to the PKI's full chain.
        public var certificates: [Certificate]? = nil
        public init(ber: Bool = false, signedAttributes: Bool = false, digestSHA1: Bool = false, certificates: [Certificate]? = nil) {
            self.ber = ber
            self.signedAttributes = signedAttributes
            self.digestSHA1 = digestSHA1
            self.certificates = certificates
        }
    }

    // MARK: payload

    public static func attribute(_ type: Int64, _ value: [UInt8]) -> [UInt8] {
        tlv(0x30, integer(type) + integer(1) + tlv(0x04, value))
    }

    public static func utf8(_ text: String) -> [UInt8] { tlv(0x0C, Array(text.utf8)) }
    public static func ia5(_ text: String) -> [UInt8] { tlv(0x16, Array(text.utf8)) }
    public static func intValue(_ value: Int64) -> [UInt8] { integer(value) }
    public static func set(_ attributes: [[UInt8]]) -> [UInt8] { tlv(0x31, attributes.flatMap { $0 }) }

    /// A typical receipt payload: the app fields and the given in-app purchases (each an attribute set).
    public static func payload(
        type: String = "ProductionSandbox", bundleId: String = "com.example.app", inApp: [[UInt8]] = [],
        extra: [[UInt8]] = []
    ) -> [UInt8] {
        set(
            [
                attribute(0, utf8(type)), attribute(2, utf8(bundleId)), attribute(3, utf8("42")),
                attribute(4, [1, 2, 3, 4]), attribute(5, [9, 9, 9]),
                attribute(12, ia5("2025-03-01T12:00:00Z")), attribute(19, utf8("1.0")), attribute(21, ia5(""))
            ] + inApp.map { attribute(17, $0) } + extra)
    }

    public static func purchase(transactionId: String = "70000000000001", intro: Int64 = 1) -> [UInt8] {
        set([
            attribute(1701, intValue(1)), attribute(1702, utf8("com.example.monthly")),
            attribute(1703, utf8(transactionId)), attribute(1704, ia5("2025-02-01T09:30:00Z")),
            attribute(1705, utf8("70000000000000")), attribute(1706, ia5("2025-01-01T09:30:00.250Z")),
            attribute(1708, ia5("2025-03-01T09:30:00Z")), attribute(1711, intValue(12345)),
            attribute(1712, ia5("")), attribute(1719, intValue(intro)), attribute(1799, [0xDE, 0xAD])
        ])
    }

    /// One in-app purchase record; dates are RFC 3339 as receipts hold them (empty: absent).
    public static func inAppPurchase(
        product: String, transactionId: String, originalTransactionId: String? = nil,
        purchaseDate: String = "2026-01-01T00:00:00Z", expiresDate: String = "", cancellationDate: String = ""
    ) -> [UInt8] {
        set([
            attribute(1701, intValue(1)), attribute(1702, utf8(product)), attribute(1703, utf8(transactionId)),
            attribute(1704, ia5(purchaseDate)), attribute(1705, utf8(originalTransactionId ?? transactionId)),
            attribute(1706, ia5(purchaseDate)), attribute(1708, ia5(expiresDate)), attribute(1712, ia5(cancellationDate))
        ])
    }

    // MARK: container

    public static func sign(
        _ content: [UInt8], signer: Certificate, key: Certificate.PrivateKey, chain: [Certificate],
        options: Options = Options()
    ) throws -> [UInt8] {
        let digestOID: ASN1ObjectIdentifier = options.digestSHA1 ? [1, 3, 14, 3, 2, 26] : [2, 16, 840, 1, 101, 3, 4, 2, 1]
        let algorithm: Certificate.SignatureAlgorithm = options.digestSHA1 ? .sha1WithRSAEncryption : .sha256WithRSAEncryption
        let digestAlgorithm = tlv(0x30, try oid(digestOID) + [0x05, 0x00])
        var signedAttributesField: [UInt8] = []
        var signedBytes = content
        if options.signedAttributes {
            let digest = options.digestSHA1 ? Array(Insecure.SHA1.hash(data: content)) : Array(SHA256.hash(data: content))
            let attributes =
                tlv(0x30, try oid([1, 2, 840, 113549, 1, 9, 3]) + tlv(0x31, try oid([1, 2, 840, 113549, 1, 7, 1])))
                + tlv(0x30, try oid([1, 2, 840, 113549, 1, 9, 4]) + tlv(0x31, tlv(0x04, digest)))
            signedBytes = tlv(0x31, attributes)
            signedAttributesField = tlv(0xA0, attributes)
        }
        let signature = try key.sign(bytes: signedBytes, signatureAlgorithm: algorithm).rawRepresentation
        var issuer = DER.Serializer()
        try issuer.serialize(signer.issuer)
        let signerIdentifier: [UInt8] = tlv(0x30, issuer.serializedBytes + tlv(0x02, Array(signer.serialNumber.bytes)))
        let rsaAlgorithm: [UInt8] = tlv(0x30, try oid([1, 2, 840, 113549, 1, 1, 1]) + [0x05, 0x00])
        var signerFields: [UInt8] = integer(1) + signerIdentifier
        signerFields += digestAlgorithm + signedAttributesField
        signerFields += rsaAlgorithm + tlv(0x04, signature)
        let signerInfo = tlv(0x30, signerFields)
        let certificates = try (options.certificates ?? chain).flatMap { try TestPKI.der($0) }
        let ber = options.ber
        func construct(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { ber ? indefinite(tag, content) : tlv(tag, content) }
        let half = content.count / 2
        let eContent =
            options.ber
            ? indefinite(0x24, tlv(0x04, Array(content[..<half])) + tlv(0x04, Array(content[half...])))
            : tlv(0x04, content)
        let encapsulated: [UInt8] = construct(0x30, try oid([1, 2, 840, 113549, 1, 7, 1]) + construct(0xA0, eContent))
        var signedFields: [UInt8] = integer(1) + tlv(0x31, digestAlgorithm)
        signedFields += encapsulated
        signedFields += tlv(0xA0, certificates) + tlv(0x31, signerInfo)
        let signedData = construct(0x30, signedFields)
        return construct(0x30, try oid([1, 2, 840, 113549, 1, 7, 2]) + construct(0xA0, signedData))
    }

    // MARK: DER / BER primitives

    public static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8]
        if content.count < 0x80 {
            length = [UInt8(content.count)]
        } else {
            var bytes: [UInt8] = []
            var remaining = content.count
            while remaining > 0 { bytes.insert(UInt8(remaining & 0xFF), at: 0); remaining >>= 8 }
            length = [0x80 | UInt8(bytes.count)] + bytes
        }
        return [tag] + length + content
    }

    public static func indefinite(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag, 0x80] + content + [0x00, 0x00] }

    public static func integer(_ value: Int64) -> [UInt8] {
        var serializer = DER.Serializer()
        try? serializer.serialize(value)
        return serializer.serializedBytes
    }

    public static func oid(_ identifier: ASN1ObjectIdentifier) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(identifier)
        return serializer.serializedBytes
    }
}
