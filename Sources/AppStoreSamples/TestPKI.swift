import Crypto
import Foundation
import SwiftASN1
import X509

/// An in-process test PKI shaped like Apple's: root → WWDR-like intermediate (OID 1.2.840.113635.100.6.2.1) →
/// signing leaf (OID 1.2.840.113635.100.6.11.1), with switches for every bad variant the verifier must reject.
public struct TestPKI: Sendable {
    public struct Options {
        public var leafOID = true
        public var intermediateOID = true
        public var leafValidity: ClosedRange<Date> = TestPKI.defaultValidity
        /// Sign receipts with RSA (as Apple does) instead of the leaf's P-256 key.
        public var rsaLeaf = false
        public var p384Leaf = false
        public init(
            leafOID: Bool = true, intermediateOID: Bool = true, leafValidity: ClosedRange<Date> = TestPKI.defaultValidity,
            rsaLeaf: Bool = false, p384Leaf: Bool = false
        ) {
            self.leafOID = leafOID
            self.intermediateOID = intermediateOID
            self.leafValidity = leafValidity
            self.rsaLeaf = rsaLeaf
            self.p384Leaf = p384Leaf
        }
    }

    public static let defaultValidity = Date(timeIntervalSince1970: 1_600_000_000)...Date(timeIntervalSince1970: 2_100_000_000)
    public static let appleLeafOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    public static let appleIntermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]

    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate
    public let leafKey: Certificate.PrivateKey

    public init(_ options: Options = Options(), name: String = "Test") throws {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName {
            CommonName("\(name) Root CA"); OrganizationName("Ledger Tests")
        }
        let intermediateName = try DistinguishedName {
            CommonName("\(name) WWDR"); OrganizationName("Ledger Tests")
        }
        let leafName = try DistinguishedName {
            CommonName("\(name) Store Signing"); OrganizationName("Ledger Tests")
        }
        root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: Self.defaultValidity.lowerBound, notValidAfter: Self.defaultValidity.upperBound,
            issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Self.caExtensions(oid: nil), issuerPrivateKey: .init(rootKey)
        )
        intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
            notValidBefore: Self.defaultValidity.lowerBound, notValidAfter: Self.defaultValidity.upperBound,
            issuer: rootName, subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Self.caExtensions(oid: options.intermediateOID ? Self.appleIntermediateOID : nil),
            issuerPrivateKey: .init(rootKey)
        )
        if options.rsaLeaf {
            leafKey = try Certificate.PrivateKey(pemEncoded: Self.rsaKeyPEM)
        } else if options.p384Leaf {
            leafKey = Certificate.PrivateKey(P384.Signing.PrivateKey())
        } else {
            leafKey = Certificate.PrivateKey(P256.Signing.PrivateKey())
        }
        leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: leafKey.publicKey,
            notValidBefore: options.leafValidity.lowerBound, notValidAfter: options.leafValidity.upperBound,
            issuer: intermediateName, subject: leafName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                if options.leafOID { Certificate.Extension(oid: Self.appleLeafOID, critical: false, value: [0x05, 0x00]) }
            },
            issuerPrivateKey: .init(intermediateKey)
        )
    }

    public static func caExtensions(oid: ASN1ObjectIdentifier?) throws -> Certificate.Extensions {
        try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            Critical(KeyUsage(keyCertSign: true))
            if let oid { Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00]) }
        }
    }

    /// A self-signed certificate like StoreKit testing's (P-256 for JWS, RSA for receipts).
    public static func selfSigned(rsa: Bool, validity: ClosedRange<Date> = defaultValidity) throws -> (Certificate, Certificate.PrivateKey) {
        let key = rsa ? try Certificate.PrivateKey(pemEncoded: rsaKeyPEM) : Certificate.PrivateKey(P256.Signing.PrivateKey())
        let name = try DistinguishedName { CommonName("StoreKit Testing in Xcode") }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: key.publicKey,
            notValidBefore: validity.lowerBound, notValidAfter: validity.upperBound, issuer: name, subject: name,
            signatureAlgorithm: rsa ? .sha256WithRSAEncryption : .ecdsaWithSHA256,
            extensions: Certificate.Extensions(), issuerPrivateKey: key
        )
        return (certificate, key)
    }

    public var chain: [Certificate] { [leaf, intermediate, root] }

    public static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// A generated RSA-2048 test key (receipts are RSA-signed; swift-crypto cannot generate RSA keys portably).
    public static let rsaKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCY82ApQis2nbOi
        ohCh5KyQOIf66hxKF9HxlnJaPmf7f0km4EHANpMjZj5b/ft0X+So4TpMtMUKF+EM
        XT5Mb4naiO1anysaSP3fYXumCNu0oY48mEDkdSy8ehvA0bv93W24WmZ2MYB/DILg
        XIzTkFSdtlceROKt7QQ9WfvbIBh7TTdKp5zTmkq42dnre74APP0TA/zxg56Y32T8
        T2Y/j8v6wxxZpiY9XXkf40Pqvc7ZFh4d1XzMOX1Xx5UwzxpvJrlHR0EWQ22QxwKe
        XEqlbeueY0xKbILn4aPLavRnqvwZdB2XozqwCaILwSsL6hu2rXaNTMiAJiIELKAJ
        zHIkVmG5AgMBAAECggEACQeNLMJgRLgoq7g/nR8f5N/Bf1mk0+b2GPoVxCgdAWbx
        TZ89onhWVWeq1Ml4t9UVbbbmNzMQ0ti4C3/Rtrd6/vDIemodJE8c1bwujY3GUrKa
        8A7Y/ePBAVuAGfEH1SPmX1TO6blgaZ+2dkJgefjyVeE24W2VqEju0CRozvXlHBpK
        fcDMgjLNypfnj3qCldefnGJbewKFokAFsbsvWbcieU2uqbBap3azJGpdGXfla0YK
        icOp3WkZ0/6PjVlz+BnNd3uuPhGhGAEDsFYdLItbJISIkgHdpgKY3p5pFOhMrQe+
        LemoT2hWztAocoWeJb7p4I3Gybgb4d/AEKXG82m5gQKBgQDQAD7A01FmP30/1LnQ
        0dQQ+VOT4nxGMUeB7Qgz/bQ97U6kkVkczKAh8CgqATbOG8XfS5/y4r9pXPEIZUGi
        vuajELyOB747p9jxIzwSeBIlBV86Y5m3Z5F0ZKGmiajWvW6Yzr3LRT8kwcKJJOg9
        H3xA9eMEaMsa00ecXCdosh5ccQKBgQC8PwJ7VNNQf5n+oyi+6EJRIwVPwjVrzoF1
        xKZWybuEftrUlxJS9sU9knwTgVCOD5g/XQObcP00hxYZq6jn3vq0y97yudXGi4+r
        GPJ23CL1hLlckYFdvQnKnWv2X5qwONvztBB+w3pY0islQ9XS/MElvyLg6EBjoJvW
        db54ufcdyQKBgDfw+O+vZeMUDEGQmvEYnep6xAmwDjBqrIq7D0u8Xi+RlWcZWFgw
        iJjYGFVDwlOokI0/r6MJbOWPg5v4b7CvmyQcKjogxv8QY35nNY7aEDc4vKXdh8gV
        6L7fGcLKn0gx5n7ei5kR5KukGQf9jyBxSV/HQek7rfRnAomBF3BHB3dhAoGAOke/
        uvM+IRQAV0eoW8KIlZokENdttpzOk+l4HjKCrbigg2TqNWlVE4UAiQFmMTU+y48+
        iKdonRSdkQEGYBM2xza/JaLHPpsCtdQZbRcmc6DNyoz54k2edG5ceICM4bYY0tCS
        ssxOWqVm2jiwQIwkOE1+vObq2G1nEfSOLc5VZZECgYBvhqFIw96S38HaDyK2jelV
        5wHIr+VteEf7Dgh0QkDMSTj0iBu1HW3WXH7hSbcwUmQRG8ZHlNC4kNmnFUR50yGz
        i6ZPQwi/YeSmH8Bo4aAxeO2tmZUHApFgPxZQHqeUk16ZTZLHsdaeoH8iVZM2EraW
        ZWI5JAw3YZRidDKHDv81eA==
        -----END PRIVATE KEY-----
        """
}
